import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '@servery/client';
import { rotateAppWebhookSecret } from '../../src/domain/webhooks/app-webhook.service.ts';
import { idFor, record } from '../events/events-helpers.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';
import { type Received, runJob, startReceiver, webhookFor } from '../webhooks/delivery-helpers.ts';

/*
 * verifyWebhook against real deliveries: the worker's webhook job posts signed events to a
 * receiver on a loopback port (a test restaurant's webhook may use http there), and the receiver
 * checks what it got with the client's verifier, its clock at the time of the send unless told.
 */

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  t = await buildTestApp({ config: { webhooksAllowInsecure: true } });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

let serial = 0;
/** A test restaurant whose app's webhook posts to a path of its own; the path and signing secret. */
async function hooked(): Promise<{ tenant: Tenant; path: string; secret: string }> {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  serial += 1;
  const path = `/ok/client-${serial}`;
  const secret = await webhookFor(t, tenant, `${receiver.base}${path}`);
  return { tenant, path, secret };
}

/** Records an order.created event and lets the worker deliver it; what the receiver got, and the event id. */
async function delivered(tenant: Tenant, path: string): Promise<{ got: Received; id: string }> {
  const before = receiver.received.filter((r) => r.path === path).length;
  const outboxId = await record(t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(t.database.db, t.clock);
  const got = receiver.received.filter((r) => r.path === path)[before];
  assert.ok(got, 'delivered');
  return { got, id: await idFor(t, tenant, outboxId) };
}

function refusedFor(reason: WebhookVerificationFailure, verify: () => unknown): void {
  assert.throws(verify, (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    assert.equal(error.reason, reason);
    return true;
  });
}

const seconds = (s: number) => new Date(t.clock.now().getTime() + s * 1000);

describe('verifyWebhook', () => {
  test('with the right secret it returns the event the delivery carries', async () => {
    const { tenant, path, secret } = await hooked();
    const { got, id } = await delivered(tenant, path);
    const event = verifyWebhook(got.body, got.headers, secret, { now: t.clock.now() });
    assert.deepEqual(event, JSON.parse(got.body));
    assert.equal(event.id, id);
    assert.equal(event.type, 'order.created');
    assert.equal(event.connection_id, tenant.connectionId);
    // The body as bytes and the headers as the Fetch API gives them verify alike.
    const headers = new Headers(got.headers as Record<string, string>);
    assert.deepEqual(verifyWebhook(Buffer.from(got.body), headers, [secret], { now: t.clock.now() }), event);
  });

  test('a wrong secret, a changed body or a missing or malformed header are refused', async () => {
    const { tenant, path, secret } = await hooked();
    const { got } = await delivered(tenant, path);
    const now = t.clock.now();
    const other = `whsec_${randomBytes(32).toString('base64url')}`;
    refusedFor('no_matching_signature', () => verifyWebhook(got.body, got.headers, other, { now }));
    refusedFor('no_matching_signature', () =>
      verifyWebhook(got.body.replace('order.created', 'order.paid'), got.headers, secret, { now }),
    );
    const without = { ...got.headers, 'service-signature': undefined };
    refusedFor('missing_header', () => verifyWebhook(got.body, without, secret, { now }));
    const signature = got.headers['service-signature'] as string;
    const noTime = { ...got.headers, 'service-signature': signature.replace(/^t=\d+,/, '') };
    refusedFor('malformed_header', () => verifyWebhook(got.body, noTime, secret, { now }));
    // A signature of the right secret over another time does not verify either.
    const otherTime = {
      ...got.headers,
      'service-signature': signature.replace(/^t=(\d+)/, (_, s) => `t=${+s + 1}`),
    };
    refusedFor('no_matching_signature', () => verifyWebhook(got.body, otherTime, secret, { now }));
  });

  test('a signature more than the tolerance away from the receiver’s clock is refused (300 s unless told)', async () => {
    const { tenant, path, secret } = await hooked();
    const { got } = await delivered(tenant, path);
    const verifyAt = (now: Date, toleranceSeconds?: number) =>
      verifyWebhook(got.body, got.headers, secret, { now, toleranceSeconds });
    assert.ok(verifyAt(seconds(300)));
    assert.ok(verifyAt(seconds(-300)));
    refusedFor('timestamp_out_of_tolerance', () => verifyAt(seconds(301)));
    refusedFor('timestamp_out_of_tolerance', () => verifyAt(seconds(-301)));
    assert.ok(verifyAt(seconds(3600), 3600));
    refusedFor('timestamp_out_of_tolerance', () => verifyAt(seconds(31), 30));
    // Without `now`, the current time: the test clock's send lies far from it.
    assert.ok(Math.abs(Date.now() - t.clock.now().getTime()) > 300_000);
    refusedFor('timestamp_out_of_tolerance', () => verifyWebhook(got.body, got.headers, secret));
  });

  test('during a rotation the old and the new secret verify, alone or together; 24 hours later only the new', async () => {
    const { tenant, path, secret: old } = await hooked();
    const { secret: rotated } = await rotateAppWebhookSecret(t.ctx, {
      clientId: tenant.clientId,
      developerId: null,
    });
    const { got } = await delivered(tenant, path);
    assert.match(got.headers['service-signature'] as string, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const now = t.clock.now();
    for (const secrets of [rotated, old, [old, rotated], [rotated, old]]) {
      assert.ok(verifyWebhook(got.body, got.headers, secrets, { now }), String(secrets));
    }
    const other = `whsec_${randomBytes(32).toString('base64url')}`;
    assert.ok(verifyWebhook(got.body, got.headers, [other, rotated], { now }));

    t.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const { got: later } = await delivered(tenant, path);
    assert.match(later.headers['service-signature'] as string, /^t=\d+,v1=[0-9a-f]{64}$/);
    const laterNow = t.clock.now();
    assert.ok(verifyWebhook(later.body, later.headers, rotated, { now: laterNow }));
    assert.ok(verifyWebhook(later.body, later.headers, [old, rotated], { now: laterNow }));
    refusedFor('no_matching_signature', () =>
      verifyWebhook(later.body, later.headers, old, { now: laterNow }),
    );
  });
});
