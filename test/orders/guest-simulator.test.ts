import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulateGuests } from '../../src/demo/guest-simulator.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { type OrderingTenant, orderingTenant } from './order-helpers.ts';

describe('the guest simulator of servery demo', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  let baseUrl: string;
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  it('orders through the guest API over HTTP, paying online ones with the test provider, and the app sees each', async () => {
    const lines: string[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const placed = await simulateGuests({
      baseUrl,
      slug: tenant.slug,
      orders: 6,
      everyMs: 0,
      report: (line) => lines.push(line),
      random,
    });
    assert.equal(placed, 6, lines.join('\n'));
    assert.equal(lines.length, 6);
    assert.match(lines[0] ?? '', /^order 1\/6: [A-Z0-9]{4} (pickup|delivery)/);
    const orders = await ok(t, tenant.token, 'GET', '/orders?limit=100');
    assert.equal(orders.data.length, 6);
    const online = orders.data.filter(
      (order: { payment: { method: string } }) => order.payment.method === 'online',
    );
    assert.ok(online.length > 0, 'some guests paid online');
    for (const order of online) assert.equal(order.payment.status, 'paid');
  });
});
