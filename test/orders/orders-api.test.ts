import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAnotherApp, feedAll } from '../events/events-helpers.ts';
import { bearer, buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { assertError, ok, request } from '../menu/menu-helpers.ts';
import {
  guest,
  type OrderingTenant,
  orderingTenant,
  pickupOrder,
  place,
  placePaid,
} from './order-helpers.ts';

/*
 * The public orders API as an app reads it (spec: GET /orders, GET /orders/{id}, POST
 * /orders/{id}/acknowledge; decisions.md, Orders): every list filter, the list's two orders, its
 * cursors and limits, unknown parameters, what is never listed, and what each app sees of its own
 * acknowledgement.
 */

type Listed = { id: string; updated_at: string; created_at: string };
const ids = (list: { data: Listed[] }) => list.data.map((order) => order.id);

/** Every order of a list query, page by page (limit per page), checking each page's envelope. */
async function listAll(t: TestApp, token: string, query: string, limit: number): Promise<Listed[]> {
  const all: Listed[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages += 1) {
    const sep = query === '' ? '' : '&';
    const page = await ok(
      t,
      token,
      'GET',
      `/orders?${query}${sep}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`,
    );
    assert.equal(page.object, 'list');
    assert.ok(page.data.length <= limit);
    all.push(...page.data);
    assert.equal(page.has_more, page.next_cursor !== null);
    if (!page.has_more) return all;
    cursor = page.next_cursor;
  }
  throw new Error('too many pages');
}

const deliveryOrder = (tenant: OrderingTenant) =>
  pickupOrder(tenant, {
    type: 'delivery',
    delivery: { address: 'Beispielstraße 12', postal_code: '10115', city: 'Berlin' },
  });

describe('GET /v1/orders', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  /** Placed a second apart, in this order: a (pickup, on site), b (delivery, on site), c (paid online), d (pickup, on site). */
  const o = { a: '', b: '', c: '', d: '' };
  const times: Record<string, string> = {};
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    o.a = (await place(t, tenant)).order.id;
    t.clock.advance(1000);
    o.b = (await place(t, tenant, deliveryOrder(tenant))).order.id;
    t.clock.advance(1000);
    o.c = (await placePaid(t, tenant)).id;
    t.clock.advance(1000);
    o.d = (await place(t, tenant)).order.id;
    t.clock.advance(1000);
    for (const [name, id] of Object.entries(o))
      times[name] = (await ok(t, tenant.token, 'GET', `/orders/${id}`)).created_at;
  });
  after(() => t.close());

  it('lists the most recently changed first: an order moved later comes first', async () => {
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders')), [o.d, o.c, o.b, o.a]);
    const accepted = await ok(t, tenant.token, 'POST', `/orders/${o.b}/accept`, {}, 200);
    assert.equal(accepted.status, 'confirmed');
    const list = await ok(t, tenant.token, 'GET', '/orders');
    assert.deepEqual(ids(list), [o.b, o.d, o.c, o.a]);
    assert.equal(list.has_more, false);
    assert.equal(list.next_cursor, null);
    t.clock.advance(1000);
  });

  it('filters by status and type, each a comma list', async () => {
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?status=confirmed')), [o.b]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?status=pending')), [o.d, o.c, o.a]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?status=confirmed,completed,pending')), [
      o.b,
      o.d,
      o.c,
      o.a,
    ]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?status=cancelled')), []);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?type=delivery')), [o.b]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?type=pickup')), [o.d, o.c, o.a]);
    assert.deepEqual(
      ids(await ok(t, tenant.token, 'GET', '/orders?type=dine_in,delivery&status=pending')),
      [],
    );
    assertError(
      await request(t, tenant.token, 'GET', '/orders?status=open'),
      400,
      'invalid_request',
      'status',
    );
    assertError(
      await request(t, tenant.token, 'GET', '/orders?type=pickup,'),
      400,
      'invalid_request',
      'type',
    );
  });

  it('updated_since is exclusive and switches to ascending updated_at', async () => {
    const since = encodeURIComponent(times.b as string);
    // b was changed later (accepted), so it comes last; b's creation instant itself is excluded.
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', `/orders?updated_since=${since}`)), [
      o.c,
      o.d,
      o.b,
    ]);
    const fromA = encodeURIComponent(times.a as string);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', `/orders?updated_since=${fromA}`)), [
      o.c,
      o.d,
      o.b,
    ]);
    const before = encodeURIComponent(new Date(Date.parse(times.a as string) - 1).toISOString());
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', `/orders?updated_since=${before}`)), [
      o.a,
      o.c,
      o.d,
      o.b,
    ]);
    const latest = (await ok(t, tenant.token, 'GET', `/orders/${o.b}`)).updated_at;
    assert.deepEqual(
      ids(await ok(t, tenant.token, 'GET', `/orders?updated_since=${encodeURIComponent(latest)}`)),
      [],
    );
    // An offset instead of Z (an unencoded + is accepted too); no zone at all is a 400.
    assert.deepEqual(
      ids(
        await ok(
          t,
          tenant.token,
          'GET',
          `/orders?updated_since=${(times.c as string).replace('Z', '+00:00')}`,
        ),
      ),
      [o.d, o.b],
    );
    assertError(
      await request(t, tenant.token, 'GET', `/orders?updated_since=${(times.c as string).replace('Z', '')}`),
      400,
      'invalid_request',
      'updated_since',
    );
  });

  it('created_since is inclusive, created_until exclusive', async () => {
    const b = encodeURIComponent(times.b as string);
    const d = encodeURIComponent(times.d as string);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', `/orders?created_since=${b}`)), [o.b, o.d, o.c]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', `/orders?created_until=${b}`)), [o.a]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', `/orders?created_since=${b}&created_until=${d}`)), [
      o.b,
      o.c,
    ]);
  });

  it('paid=true lists the orders paid online, paid=false those paid on site', async () => {
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?paid=true')), [o.c]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?paid=false')), [o.b, o.d, o.a]);
    assertError(await request(t, tenant.token, 'GET', '/orders?paid=yes'), 400, 'invalid_request', 'paid');
  });

  it('never lists an unpaid online order, nor finds it by id', async () => {
    const unpaid = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
    await guest(t, tenant.slug, 'POST', `/orders/${unpaid.guest_key}/payment`);
    const failed = await guest(t, tenant.slug, 'POST', `/orders/${unpaid.guest_key}/payment/test`, {
      outcome: 'failed',
    });
    assert.equal(failed.statusCode, 200, failed.body);
    assert.ok(!ids(await ok(t, tenant.token, 'GET', '/orders?limit=100')).includes(unpaid.order.id));
    assert.ok(
      !ids(await ok(t, tenant.token, 'GET', '/orders?paid=false&limit=100')).includes(unpaid.order.id),
    );
    assert.ok(!ids(await ok(t, tenant.token, 'GET', '/orders?acknowledged=false')).includes(unpaid.order.id));
    assertError(await request(t, tenant.token, 'GET', `/orders/${unpaid.order.id}`), 404, 'not_found');
    assertError(
      await request(t, tenant.token, 'POST', `/orders/${unpaid.order.id}/acknowledge`, {}),
      404,
      'not_found',
    );
  });

  it('acknowledged and external_id count the calling app’s acknowledgements only', async () => {
    const other = await connectAnotherApp(t.ctx, tenant);
    await ok(t, other.token, 'POST', `/orders/${o.a}/acknowledge`, { external_id: 'POS-1' }, 200);
    // Another app's acknowledgement does not count for this one.
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?acknowledged=true')), []);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?acknowledged=false')), [
      o.b,
      o.d,
      o.c,
      o.a,
    ]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?external_id=POS-1')), []);
    assert.deepEqual(ids(await ok(t, other.token, 'GET', '/orders?acknowledged=true')), [o.a]);
    assert.deepEqual(ids(await ok(t, other.token, 'GET', '/orders?external_id=POS-1')), [o.a]);

    await ok(t, tenant.token, 'POST', `/orders/${o.c}/acknowledge`, { external_id: 'POS-1' }, 200);
    await ok(t, tenant.token, 'POST', `/orders/${o.d}/acknowledge`, {}, 200);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?external_id=POS-1')), [o.c]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?external_id=POS-2')), []);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?acknowledged=true')), [o.d, o.c]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?acknowledged=false')), [o.b, o.a]);
    assert.deepEqual(ids(await ok(t, other.token, 'GET', '/orders?acknowledged=false')), [o.b, o.d, o.c]);
    // Filters combine.
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?acknowledged=true&paid=true')), [o.c]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?external_id=POS-1&paid=false')), []);
    assertError(
      await request(t, tenant.token, 'GET', '/orders?external_id=%20POS-1'),
      400,
      'invalid_request',
      'external_id',
    );
    assertError(
      await request(t, tenant.token, 'GET', `/orders?external_id=${'x'.repeat(101)}`),
      400,
      'invalid_request',
      'external_id',
    );
  });

  it('pages with cursors: no order repeated or lost, in both orders, with orders changing between pages', async () => {
    const more = [];
    for (let i = 0; i < 7; i += 1) {
      t.clock.advance(500);
      more.push((await place(t, tenant)).order.id);
    }
    const everything = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    for (const limit of [1, 2, 3, 5]) {
      const paged = await listAll(t, tenant.token, '', limit);
      assert.deepEqual(
        paged.map((order) => order.id),
        ids(everything),
      );
      const ascending = await listAll(
        t,
        tenant.token,
        `updated_since=${encodeURIComponent(times.a as string)}`,
        limit,
      );
      const ascendingIds = ascending.map((order) => order.id);
      assert.equal(new Set(ascendingIds).size, ascendingIds.length);
      assert.deepEqual(
        [...ascendingIds].sort(),
        ids(everything)
          .filter((id) => id !== o.a)
          .sort(),
      );
      const updated = ascending.map((order) => order.updated_at);
      assert.deepEqual(updated, [...updated].sort());
    }
    // A page, then a new order: the next page neither repeats nor loses what the first page left.
    const first = await ok(t, tenant.token, 'GET', '/orders?status=pending&limit=3');
    t.clock.advance(500);
    const newest = (await place(t, tenant)).order.id;
    const rest = await listAll(t, tenant.token, 'status=pending', 100);
    const second = await ok(
      t,
      tenant.token,
      'GET',
      `/orders?status=pending&limit=100&cursor=${first.next_cursor}`,
    );
    assert.deepEqual(
      [...ids(first), ...ids(second)],
      rest.map((order) => order.id).filter((id) => id !== newest),
    );
  });

  it('refuses a cursor sent with other filters, and one it never issued (400 cursor)', async () => {
    const page = await ok(t, tenant.token, 'GET', '/orders?status=pending&limit=1');
    assert.ok(page.next_cursor);
    assertError(
      await request(
        t,
        tenant.token,
        'GET',
        `/orders?status=pending,confirmed&limit=1&cursor=${page.next_cursor}`,
      ),
      400,
      'invalid_request',
      'cursor',
    );
    assertError(
      await request(t, tenant.token, 'GET', `/orders?limit=1&cursor=${page.next_cursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    // Another limit is the same list.
    await ok(t, tenant.token, 'GET', `/orders?status=pending&limit=5&cursor=${page.next_cursor}`);
    assertError(
      await request(t, tenant.token, 'GET', '/orders?cursor=bm9wZQ'),
      400,
      'invalid_request',
      'cursor',
    );
  });

  it('limit is 1 to 100, default 25; an unknown parameter is a 400 naming it', async () => {
    for (let i = 0; i < 20; i += 1) await place(t, tenant);
    assert.equal((await ok(t, tenant.token, 'GET', '/orders')).data.length, 25);
    assert.equal((await ok(t, tenant.token, 'GET', '/orders?limit=1')).data.length, 1);
    assert.ok((await ok(t, tenant.token, 'GET', '/orders?limit=100')).data.length > 25);
    assertError(await request(t, tenant.token, 'GET', '/orders?limit=0'), 400, 'invalid_request', 'limit');
    assertError(await request(t, tenant.token, 'GET', '/orders?limit=101'), 400, 'invalid_request', 'limit');
    assertError(
      await request(t, tenant.token, 'GET', '/orders?sort=created_at'),
      400,
      'invalid_request',
      'sort',
    );
    assertError(
      await request(t, tenant.token, 'GET', '/orders?status=pending&Status=x'),
      400,
      'invalid_request',
      'Status',
    );
  });
});

describe('orders of another restaurant', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('are never found: GET and every write answer 404, and nothing changes', async () => {
    const mine = await orderingTenant(t);
    const theirs = await makeTenant(t.ctx);
    const { id } = await placePaid(t, mine);
    assertError(await request(t, theirs.token, 'GET', `/orders/${id}`), 404, 'not_found');
    for (const action of ['acknowledge', 'accept', 'reject', 'cancel', 'advance'])
      assertError(await request(t, theirs.token, 'POST', `/orders/${id}/${action}`, {}), 404, 'not_found');
    assert.deepEqual((await ok(t, theirs.token, 'GET', '/orders')).data, []);
    const order = await ok(t, mine.token, 'GET', `/orders/${id}`);
    assert.equal(order.status, 'pending');
    assert.equal(order.acknowledged_at, null);
    assertError(await request(t, mine.token, 'GET', '/orders/not-a-uuid'), 400, 'invalid_request', 'id');
  });
});

describe('POST /v1/orders/{id}/acknowledge', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
  });
  after(() => t.close());

  it('shows the caller its external_id and acknowledged_at, null to another app and in events', async () => {
    const other = await connectAnotherApp(t.ctx, tenant);
    const { id } = await placePaid(t, tenant);
    const placedAt = t.clock.now().toISOString();
    t.clock.advance(60_000);
    const acknowledged = await ok(
      t,
      tenant.token,
      'POST',
      `/orders/${id}/acknowledge`,
      { external_id: 'POS-7' },
      200,
    );
    assert.equal(acknowledged.external_id, 'POS-7');
    assert.equal(acknowledged.acknowledged_at, t.clock.now().toISOString());
    // Acknowledging changes nothing the others see: not even updated_at.
    assert.equal(acknowledged.updated_at, placedAt);
    const own = await ok(t, tenant.token, 'GET', `/orders/${id}`);
    assert.equal(own.external_id, 'POS-7');
    assert.equal(own.acknowledged_at, acknowledged.acknowledged_at);
    const [listed] = (await ok(t, tenant.token, 'GET', '/orders?external_id=POS-7')).data;
    assert.equal(listed.acknowledged_at, acknowledged.acknowledged_at);
    const seen = await ok(t, other.token, 'GET', `/orders/${id}`);
    assert.equal(seen.external_id, null);
    assert.equal(seen.acknowledged_at, null);
    const otherListed = (await ok(t, other.token, 'GET', '/orders?limit=100')).data.find(
      (order: { id: string }) => order.id === id,
    );
    assert.equal(otherListed.external_id, null);
    await ok(t, tenant.token, 'POST', `/orders/${id}/accept`, {}, 200);
    const events = (await feedAll(t, tenant.token, '&types=order.*')).filter(
      (event) => event.data.object.id === id,
    );
    assert.deepEqual(
      events.map((event) => event.type),
      ['order.created', 'order.paid', 'order.status_changed'],
    );
    for (const event of events) {
      assert.equal(event.data.object.external_id, null);
      assert.equal(event.data.object.acknowledged_at, null);
    }
  });

  it('again: keeps the first acknowledged_at; a value changes external_id, null clears it, absent keeps it', async () => {
    const { id } = await placePaid(t, tenant);
    const first = await ok(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, {}, 200);
    assert.equal(first.external_id, null);
    assert.ok(first.acknowledged_at);
    t.clock.advance(5000);
    const named = await ok(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, { external_id: 'A-1' }, 200);
    assert.equal(named.external_id, 'A-1');
    assert.equal(named.acknowledged_at, first.acknowledged_at);
    t.clock.advance(5000);
    const renamed = await ok(
      t,
      tenant.token,
      'POST',
      `/orders/${id}/acknowledge`,
      { external_id: 'A-2' },
      200,
    );
    assert.equal(renamed.external_id, 'A-2');
    const kept = await ok(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, {}, 200);
    assert.equal(kept.external_id, 'A-2');
    const cleared = await ok(
      t,
      tenant.token,
      'POST',
      `/orders/${id}/acknowledge`,
      { external_id: null },
      200,
    );
    assert.equal(cleared.external_id, null);
    assert.equal(cleared.acknowledged_at, first.acknowledged_at);
    // The value freed by renaming and clearing is free for another order.
    const { id: next } = await placePaid(t, tenant);
    assert.equal(
      (await ok(t, tenant.token, 'POST', `/orders/${next}/acknowledge`, { external_id: 'A-1' }, 200))
        .external_id,
      'A-1',
    );
    assert.equal(
      (await ok(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, { external_id: 'A-2' }, 200))
        .external_id,
      'A-2',
    );
  });

  it('409 external_id_taken for a value the app uses for another order; another app may use it', async () => {
    const other = await connectAnotherApp(t.ctx, tenant);
    const { id: first } = await placePaid(t, tenant);
    const { id: second } = await placePaid(t, tenant);
    await ok(t, tenant.token, 'POST', `/orders/${first}/acknowledge`, { external_id: 'T-1' }, 200);
    assertError(
      await request(t, tenant.token, 'POST', `/orders/${second}/acknowledge`, { external_id: 'T-1' }),
      409,
      'external_id_taken',
      'external_id',
    );
    // The refused acknowledgement left nothing behind: the order is still unacknowledged.
    const untouched = await ok(t, tenant.token, 'GET', `/orders/${second}`);
    assert.equal(untouched.acknowledged_at, null);
    assert.ok(ids(await ok(t, tenant.token, 'GET', '/orders?acknowledged=false&limit=100')).includes(second));
    // The same value again on the same order is no conflict.
    await ok(t, tenant.token, 'POST', `/orders/${first}/acknowledge`, { external_id: 'T-1' }, 200);
    const theirs = await ok(
      t,
      other.token,
      'POST',
      `/orders/${second}/acknowledge`,
      { external_id: 'T-1' },
      200,
    );
    assert.equal(theirs.external_id, 'T-1');
    assert.deepEqual(ids(await ok(t, other.token, 'GET', '/orders?external_id=T-1')), [second]);
    assert.deepEqual(ids(await ok(t, tenant.token, 'GET', '/orders?external_id=T-1')), [first]);
  });

  it('refuses an external_id with a leading or trailing space, a control character, or over 100 characters', async () => {
    const { id } = await placePaid(t, tenant);
    for (const bad of [' POS', 'POS ', 'PO\u0000S', 'PO\nS', 'POS\u007f', 'x'.repeat(101), '', 42])
      assertError(
        await request(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, { external_id: bad }),
        400,
        'invalid_request',
        'external_id',
      );
    assertError(
      await request(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, { external: 'x' }),
      400,
      'invalid_request',
      'external',
    );
    const order = await ok(t, tenant.token, 'GET', `/orders/${id}`);
    assert.equal(order.acknowledged_at, null);
    const longest = 'x'.repeat(100);
    assert.equal(
      (await ok(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, { external_id: longest }, 200))
        .external_id,
      longest,
    );
  });

  it('replays a request with the same Idempotency-Key: the first answer, once done', async () => {
    const { id } = await placePaid(t, tenant);
    const send = (body: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/orders/${id}/acknowledge`,
        headers: {
          ...bearer(tenant.token),
          'content-type': 'application/json',
          'idempotency-key': `ack-${id}`,
        },
        payload: JSON.stringify(body),
      });
    const first = await send({ external_id: 'I-1' });
    assert.equal(first.statusCode, 200, first.body);
    // In between, the app renames it without the key.
    t.clock.advance(1000);
    await ok(t, tenant.token, 'POST', `/orders/${id}/acknowledge`, { external_id: 'I-2' }, 200);
    const again = await send({ external_id: 'I-1' });
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    // The replay did nothing: the rename stands.
    assert.equal((await ok(t, tenant.token, 'GET', `/orders/${id}`)).external_id, 'I-2');
    const reused = await send({ external_id: 'I-3' });
    assertError(reused, 422, 'idempotency_key_reused');
  });
});

describe('the orders list and GET /orders/{id} agree', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  const placed: string[] = [];
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    for (const body of [
      pickupOrder(tenant),
      pickupOrder(tenant, {
        type: 'delivery',
        delivery: { address: 'A 1', postal_code: '10115', city: 'Berlin' },
      }),
    ])
      placed.push((await place(t, tenant, body)).order.id);
  });

  it('lists each order as GET /orders/{id} shows it to the caller, its own acknowledgement included, read again or not', async () => {
    const other = await connectAnotherApp(t.ctx, tenant);
    const byId = async (token: string) => {
      const page = await ok(t, token, 'GET', '/orders?limit=100');
      return new Map<string, { external_id: string | null }>(
        page.data.map((order: { id: string; external_id: string | null }) => [order.id, order]),
      );
    };
    await byId(tenant.token);
    const [first, second] = placed as [string, string];
    await ok(
      t,
      tenant.token,
      'POST',
      `/orders/${first}/acknowledge`,
      { external_id: 'POS-\u00e9"quoted"' },
      200,
    );
    for (const token of [tenant.token, other.token, tenant.token]) {
      const listed = await byId(token);
      for (const id of [first, second])
        assert.deepEqual(listed.get(id), await ok(t, token, 'GET', `/orders/${id}`), id);
    }
    assert.equal((await byId(tenant.token)).get(first)?.external_id, 'POS-é"quoted"');
    assert.equal((await byId(other.token)).get(first)?.external_id, null);
  });
  after(() => t.close());
});
