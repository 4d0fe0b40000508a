import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { openLimiters } from '../../src/adapters/rate-limit-stores.ts';
import { buildApp } from '../../src/app.ts';
import { buildTestApp, type TestApp, testBaseUrl } from '../harness.ts';
import { type OrderingTenant, orderingTenant, pickupOrder, setGuestLimit } from '../orders/order-helpers.ts';
import { addTable, bookingTenant, setClock } from '../reservations/reservation-helpers.ts';

/*
 * The guest limits (docs/storefront.md, "Limits") through the guest API and the checkout form,
 * with counts: per address 10 orders paid on site in 10 minutes and 30 paid online; per
 * restaurant 60 orders paid on site a minute, which the owner may raise; a refused or failed
 * placement is not counted; 30 guests from 30 addresses in a minute are never refused.
 */

let t: TestApp;
/**
 * The same service with every window an hour (LimitOverrides): the restaurant's limit counts a
 * minute, and on a busy machine placing 60 orders may take longer; counted in an hour's window,
 * the test does not race the clock.
 */
let hourly: FastifyInstance;
before(async () => {
  t = await buildTestApp();
  hourly = await buildApp({
    config: { baseUrl: testBaseUrl },
    db: t.database.db,
    clock: t.clock,
    limiters: await openLimiters({ db: t.database.db }, { durationSeconds: 3600 }),
  });
});
after(async () => {
  await hourly?.close();
  await t.close();
});

/** A guest's order through the guest API from `address`. */
const placeFrom = (
  tenant: OrderingTenant,
  address: string,
  body: unknown = pickupOrder(tenant),
  app: FastifyInstance = t.app,
) =>
  app.inject({
    method: 'POST',
    url: `/s/${tenant.slug}/api/orders`,
    remoteAddress: address,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

const ordersOf = async (tenant: OrderingTenant) => {
  const { n } = await t.database.db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', tenant.restaurantId)
    .executeTakeFirstOrThrow();
  return Number(n);
};

function assertLimited(res: LightMyRequestResponse, windowSeconds: number) {
  assert.equal(res.statusCode, 429, res.body);
  const body = res.json();
  assert.equal(body.error.code, 'rate_limited');
  assert.match(body.error.message, /Too many orders were placed here just now; retry after \d+ s\./);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(retryAfter > 0 && retryAfter <= windowSeconds, `Retry-After ${res.headers['retry-after']}`);
}

describe('guest limits of orders', () => {
  it('one address: 10 orders paid on site in 10 minutes, the 11th 429 with Retry-After and nothing written; failed ones do not count', async () => {
    const tenant = await orderingTenant(t);
    const unknownProduct = pickupOrder(tenant, {
      items: [{ product_id: '00000000-0000-4000-8000-000000000000', quantity: 1 }],
    });
    for (let n = 0; n < 3; n++)
      assert.equal((await placeFrom(tenant, '198.51.100.7', unknownProduct)).statusCode, 400);
    for (let n = 0; n < 10; n++)
      assert.equal((await placeFrom(tenant, '198.51.100.7')).statusCode, 201, `order ${n + 1}`);
    assertLimited(await placeFrom(tenant, '198.51.100.7'), 600);
    assert.equal(await ordersOf(tenant), 10, 'the refused order was not written');
    // Another address, and the same one paying online, go on.
    assert.equal((await placeFrom(tenant, '198.51.100.8')).statusCode, 201);
    const online = pickupOrder(tenant, { payment_method: 'online' });
    assert.equal((await placeFrom(tenant, '198.51.100.7', online)).statusCode, 201);
    // Another restaurant counts apart.
    const other = await orderingTenant(t);
    assert.equal((await placeFrom(other, '198.51.100.7')).statusCode, 201);
  });

  it('one address: 30 orders paid online in 10 minutes, then 429', async () => {
    const tenant = await orderingTenant(t);
    const online = pickupOrder(tenant, { payment_method: 'online' });
    for (let n = 0; n < 30; n++)
      assert.equal((await placeFrom(tenant, '203.0.113.20', online)).statusCode, 201, `order ${n + 1}`);
    assertLimited(await placeFrom(tenant, '203.0.113.20', online), 600);
    assert.equal(await ordersOf(tenant), 30);
  });

  it('30 guests from 30 addresses in a minute are all served; the restaurant’s 61st order paid on site in a minute is refused until its owner raises the limit', async () => {
    const tenant = await orderingTenant(t);
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, n) => placeFrom(tenant, `192.0.2.${n + 1}`, undefined, hourly)),
    );
    assert.deepEqual(
      burst.map((res) => res.statusCode),
      Array(30).fill(201),
    );
    for (let n = 30; n < 60; n++)
      assert.equal((await placeFrom(tenant, `192.0.2.${n + 1}`, undefined, hourly)).statusCode, 201);
    assertLimited(await placeFrom(tenant, '192.0.2.100', undefined, hourly), 3600);
    // Online orders are not the restaurant's count: they reach the kitchen once paid.
    const online = pickupOrder(tenant, { payment_method: 'online' });
    assert.equal((await placeFrom(tenant, '192.0.2.101', online, hourly)).statusCode, 201);

    await setGuestLimit(t, tenant, 61);
    assert.equal(
      (await placeFrom(tenant, '192.0.2.102', undefined, hourly)).statusCode,
      201,
      'the raised limit holds one more',
    );
    assertLimited(await placeFrom(tenant, '192.0.2.103', undefined, hourly), 3600);
    assert.equal(await ordersOf(tenant), 62);
  });
});

describe('guest limits of bookings', () => {
  it('30 bookings a minute at a restaurant from 30 addresses, the 31st refused from any address; nothing more booked', async () => {
    setClock(t, '2026-11-02T10:00:00Z');
    const tenant = await bookingTenant(t);
    const { slug } = await t.database.db
      .selectFrom('restaurants')
      .select('slug')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    for (let n = 0; n < 31; n++) await addTable(tenant, { label: `T${n}`, seats: 4 });
    const book = (address: string) =>
      hourly.inject({
        method: 'POST',
        url: `/s/${slug}/book/times`,
        remoteAddress: address,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          date: '2026-11-03',
          party_size: '2',
          starts_at: '2026-11-03T18:00:00.000Z',
          guest_name: 'Ada Lovelace',
          guest_email: 'ada@example.test',
          guest_phone: '+49 30 1234567',
        }).toString(),
      });
    for (let n = 0; n < 30; n++)
      assert.equal((await book(`198.18.0.${n + 1}`)).statusCode, 303, `booking ${n + 1}`);
    const refused = await book('198.18.1.1');
    assert.equal(refused.statusCode, 429, refused.body);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 3600, String(refused.headers['retry-after']));
    const booked = await t.database.db
      .selectFrom('reservations')
      .select('id')
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.equal(booked.length, 30);
  });
});
