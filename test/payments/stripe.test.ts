import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { StripePayments } from '../../src/adapters/payments/stripe-payments.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { buildTestApp, json, makeTenant, type TestApp } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import {
  guest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  place,
  storefrontPreview,
} from '../orders/order-helpers.ts';
import { type FakeStripe, fakeWebhookSecret, startFakeStripe } from './fake-stripe.ts';

/**
 * A Stripe event about a PaymentIntent, as Stripe sends it to the webhook (JSON text), with the
 * metadata the PaymentIntent was created with (none: another system's, or found by reference).
 */
function intentEvent(type: string, intentId: string, metadata: Record<string, string> = {}): string {
  return JSON.stringify({
    id: `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: '2025-10-29.clover',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object: { id: intentId, object: 'payment_intent', status: 'succeeded', metadata } },
  });
}

/** Delivers `payload` to the webhook as Stripe does, signed with `secret`. */
function deliver(t: TestApp, payload: string, secret = fakeWebhookSecret, signature?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/payments/stripe/webhook',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret }),
    },
    payload,
  });
}

describe('Stripe takes live restaurants’ online payments', () => {
  let stripe: FakeStripe;
  let t: TestApp;
  let tenant: OrderingTenant;
  before(async () => {
    stripe = await startFakeStripe();
    t = await buildTestApp({ payments: new StripePayments(stripe.settings) });
    tenant = await orderingTenant(t);
  });
  after(async () => {
    await t.close();
    await stripe.close();
  });

  /** An online order whose Stripe payment was started: its guest key, id and PaymentIntent id. */
  async function startedOrder(): Promise<{ key: string; id: string; intent: string }> {
    const placed = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
    const started = await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`);
    assert.equal(started.statusCode, 200, started.body);
    return { key: placed.guest_key, id: placed.order.id, intent: json(started).reference };
  }

  async function orderEvents(orderId: string): Promise<string[]> {
    const events = await ok(t, tenant.token, 'GET', '/events?types=order.*&limit=100');
    return events.data
      .filter((e: { data: { object: { id: string } } }) => e.data.object.id === orderId)
      .map((e: { type: string }) => e.type);
  }

  it('starts one PaymentIntent per order, for its total and currency, and finds it again on a second start', async () => {
    const placed = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
    const before = stripe.requests.length;
    const first = json(await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`));
    const second = json(await guest(t, tenant.slug, 'POST', `/orders/${placed.guest_key}/payment`));

    const intent = stripe.intents.get(first.reference);
    assert.ok(intent, 'the reference is the PaymentIntent id');
    assert.deepEqual(first, {
      object: 'payment',
      provider: 'stripe',
      reference: intent.id,
      client_secret: intent.client_secret,
      publishable_key: 'pk_test_fake',
    });
    assert.deepEqual(second, first);
    assert.equal(intent.amount, placed.order.amounts.total);
    assert.equal(intent.amount, 3150);
    assert.equal(intent.currency, 'eur');
    assert.deepEqual(intent.metadata, { tenant_id: tenant.restaurantId, order_id: placed.order.id });
    assert.match(intent.description ?? '', new RegExp(`${placed.order.code}$`));

    const sent = stripe.requests.slice(before);
    assert.equal(sent.length, 2);
    assert.equal(sent[0]?.form['automatic_payment_methods[enabled]'], 'true');
    assert.equal(sent[0]?.headers['idempotency-key'], `servery-order-${placed.order.id}`);
    assert.equal(sent[1]?.headers['idempotency-key'], sent[0]?.headers['idempotency-key']);
    const intentsOfOrder = [...stripe.intents.values()].filter(
      (i) => i.metadata.order_id === placed.order.id,
    );
    assert.equal(intentsOfOrder.length, 1);
  });

  it('pays the order on a signed payment_intent.succeeded: listed as paid, order.created then order.paid', async () => {
    const order = await startedOrder();
    assertError(await request(t, tenant.token, 'GET', `/orders/${order.id}`), 404, 'not_found');

    // The PaymentIntent's metadata names a restaurant it is not of: nothing is paid.
    const elsewhere = { tenant_id: (await makeTenant(t.ctx)).restaurantId, order_id: order.id };
    assert.equal(
      (await deliver(t, intentEvent('payment_intent.succeeded', order.intent, elsewhere))).statusCode,
      200,
    );
    assertError(await request(t, tenant.token, 'GET', `/orders/${order.id}`), 404, 'not_found');

    // As Stripe sends it: the metadata names the restaurant, where the payment is looked up.
    const metadata = { tenant_id: tenant.restaurantId, order_id: order.id };
    const res = await deliver(t, intentEvent('payment_intent.succeeded', order.intent, metadata));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(json(res), { received: true });

    const listed = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    const paid = listed.data.find((o: { id: string }) => o.id === order.id);
    assert.ok(paid, 'the paid order is listed');
    assert.equal(paid.payment.method, 'online');
    assert.equal(paid.payment.status, 'paid');
    assert.deepEqual(await orderEvents(order.id), ['order.created', 'order.paid']);
  });

  it('records a confirmation Stripe delivers twice once', async () => {
    const order = await startedOrder();
    const event = intentEvent('payment_intent.succeeded', order.intent);
    assert.equal((await deliver(t, event)).statusCode, 200);
    assert.equal((await deliver(t, event)).statusCode, 200);
    assert.equal((await deliver(t, intentEvent('payment_intent.succeeded', order.intent))).statusCode, 200);
    assert.deepEqual(await orderEvents(order.id), ['order.created', 'order.paid']);
  });

  it('refuses an event without the webhook secret’s signature (400), recording nothing', async () => {
    const order = await startedOrder();
    const event = intentEvent('payment_intent.succeeded', order.intent);
    assertError(await deliver(t, event, 'whsec_someone_else'), 400, 'invalid_request');
    const signed = Stripe.webhooks.generateTestHeaderString({ payload: event, secret: fakeWebhookSecret });
    const tampered = event.replace('payment_intent.succeeded', 'payment_intent.succeeded ');
    assertError(await deliver(t, tampered, fakeWebhookSecret, signed), 400, 'invalid_request');
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/payments/stripe/webhook',
      headers: { 'content-type': 'application/json' },
      payload: event,
    });
    assertError(unsigned, 400, 'invalid_request');

    assertError(await request(t, tenant.token, 'GET', `/orders/${order.id}`), 404, 'not_found');
    const mine = json(await guest(t, tenant.slug, 'GET', `/orders/${order.key}`));
    assert.equal(mine.payment.status, 'awaiting');
    assert.deepEqual(await orderEvents(order.id), []);
  });

  it('leaves the order awaiting its payment on payment_intent.payment_failed, and pays it on a later success', async () => {
    const order = await startedOrder();
    const res = await deliver(t, intentEvent('payment_intent.payment_failed', order.intent));
    assert.equal(res.statusCode, 200, res.body);
    const mine = json(await guest(t, tenant.slug, 'GET', `/orders/${order.key}`));
    assert.equal(mine.payment.status, 'awaiting');
    assertError(await request(t, tenant.token, 'GET', `/orders/${order.id}`), 404, 'not_found');

    assert.equal((await deliver(t, intentEvent('payment_intent.succeeded', order.intent))).statusCode, 200);
    const paid = json(await guest(t, tenant.slug, 'GET', `/orders/${order.key}`));
    assert.equal(paid.payment.status, 'paid');
  });

  it('acknowledges other event types and PaymentIntents it did not start (200), changing nothing', async () => {
    const order = await startedOrder();
    const other = await deliver(t, intentEvent('payment_intent.created', order.intent));
    assert.equal(other.statusCode, 200, other.body);
    assert.deepEqual(json(other), { received: true });
    // Events carry the whole PaymentIntent: larger than the API's 64 KiB bodies are taken.
    const large = intentEvent('payment_intent.created', order.intent).replace(
      '"status"',
      `"notes":"${'x'.repeat(200_000)}","status"`,
    );
    assert.equal((await deliver(t, large)).statusCode, 200);
    const unknown = await deliver(t, intentEvent('payment_intent.succeeded', 'pi_another_system'));
    assert.equal(unknown.statusCode, 200, unknown.body);
    const mine = json(await guest(t, tenant.slug, 'GET', `/orders/${order.key}`));
    assert.equal(mine.payment.status, 'awaiting');
  });

  it('offers no test confirmation for a live restaurant (404): only Stripe confirms', async () => {
    const order = await startedOrder();
    const res = await guest(t, tenant.slug, 'POST', `/orders/${order.key}/payment/test`, {
      outcome: 'succeeded',
    });
    assertError(res, 404, 'not_found');
    const mine = json(await guest(t, tenant.slug, 'GET', `/orders/${order.key}`));
    assert.equal(mine.payment.status, 'awaiting');
  });

  it('keeps test restaurants on the test provider: nothing is sent to Stripe', async () => {
    const test = await orderingTenant(t, { livemode: false });
    const cookie = await storefrontPreview(t, test);
    const placed = await guest(
      t,
      test.slug,
      'POST',
      '/orders',
      pickupOrder(test, { payment_method: 'online' }),
      {
        cookie,
      },
    );
    assert.equal(placed.statusCode, 201, placed.body);
    const before = stripe.requests.length;
    const started = await guest(
      t,
      test.slug,
      'POST',
      `/orders/${json(placed).guest_key}/payment`,
      undefined,
      {
        cookie,
      },
    );
    assert.equal(started.statusCode, 200, started.body);
    assert.equal(json(started).provider, 'test');
    assert.equal(stripe.requests.length, before);
  });
});

describe('without Stripe configured', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('serves no Stripe webhook', async () => {
    const res = await deliver(t, intentEvent('payment_intent.succeeded', 'pi_x'));
    assert.equal(res.statusCode, 404);
  });
});

describe('Stripe settings', () => {
  const keys = {
    STRIPE_SECRET_KEY: 'sk_live_x',
    STRIPE_PUBLISHABLE_KEY: 'pk_live_x',
    STRIPE_WEBHOOK_SECRET: 'whsec_x',
  };

  it('takes all three keys, or none', () => {
    assert.equal(loadConfig({}).stripe, null);
    assert.deepEqual(loadConfig(keys).stripe, {
      secretKey: 'sk_live_x',
      publishableKey: 'pk_live_x',
      webhookSecret: 'whsec_x',
      api: null,
    });
    for (const missing of Object.keys(keys)) {
      const partial = { ...keys, [missing]: '' };
      assert.throws(
        () => loadConfig(partial),
        (error: Error) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, new RegExp(`missing ${missing}`));
          return true;
        },
      );
    }
  });

  it('points the client at STRIPE_API_URL (an origin) when set', () => {
    assert.deepEqual(loadConfig({ ...keys, STRIPE_API_URL: 'http://127.0.0.1:12111' }).stripe?.api, {
      host: '127.0.0.1',
      port: 12111,
      protocol: 'http',
    });
    assert.deepEqual(loadConfig({ ...keys, STRIPE_API_URL: 'https://stripe.internal/' }).stripe?.api, {
      host: 'stripe.internal',
      port: 443,
      protocol: 'https',
    });
    for (const value of ['ftp://stripe.internal', 'stripe.internal', 'http://127.0.0.1:12111/v1'])
      assert.throws(() => loadConfig({ ...keys, STRIPE_API_URL: value }), ConfigError, value);
  });
});
