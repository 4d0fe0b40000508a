import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { eventExample } from '../../src/domain/events/event-examples.ts';
import { OrderSchema } from '../../src/domain/orders/order.schema.ts';
import { orderMoney } from '../../src/domain/orders/order-amounts.ts';
import { connectAnotherApp } from '../events/events-helpers.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { guest, type OrderingTenant, orderingTenant } from './order-helpers.ts';

/*
 * Random carts placed through the guests' API: whatever the guest orders, the Order an app reads
 * keeps the spec's arithmetic (spec: Order, `amounts`, `tax`, items):
 * - line_total = unit_price × quantity, unit_price = the product's price + its options' deltas,
 *   tax_rate_bps the product's takeaway rate; subtotal = Σ line_total;
 * - total = subtotal + delivery_fee + service_fee − discount + tip;
 * - one tax line per rate, ascending, the line without a rate last; Σ gross = total − tip (here,
 *   with no fees or discount, each rate's gross is its items' line totals);
 * - tax = round(gross × rate / (10000 + rate)), net = gross − tax, both null without a rate.
 */

/** Belgium's takeaway rates by tax class (src/domain/menu/vat-rates.ts): drinks have none known. */
const takeawayRate = { food: 1200, drink: null, alcohol: 2100 } as const;
type TaxClass = keyof typeof takeawayRate;

interface MenuProduct {
  id: string;
  price: number;
  taxClass: TaxClass;
  /** Its one option group (choose up to maxSelect), if any. */
  options: { id: string; delta: number }[];
  maxSelect: number;
}

/** round(gross × rate / (10000 + rate)), halves up, exactly. */
function taxOf(gross: number, rate: number): number {
  const divisor = 10000n + BigInt(rate);
  return Number((2n * BigInt(gross) * BigInt(rate) + divisor) / (2n * divisor));
}

describe('orders of random carts', () => {
  let t: TestApp;
  let tenant: OrderingTenant;
  /** Another app's token, reading the orders (requests are counted per connection). */
  let reader: string;
  const menu: MenuProduct[] = [];
  before(async () => {
    t = await buildTestApp();
    tenant = await orderingTenant(t);
    reader = (await connectAnotherApp(t.ctx, tenant)).token;
    // A Belgian restaurant, so carts mix three rates and items without a rate (takeaway drinks).
    // No operation sets the tax country after creation; the harness makes German restaurants.
    await t.database.db
      .updateTable('restaurants')
      .set({ country: 'BE' })
      .where('id', '=', tenant.restaurantId)
      .execute();
    // The menu, random once: prices, tax classes, option groups with deltas (some negative).
    const specs = fc.sample(
      fc.record({
        price: fc.integer({ min: 300, max: 50_000 }),
        taxClass: fc.constantFrom<TaxClass>('food', 'drink', 'alcohol'),
        deltas: fc.array(fc.integer({ min: -100, max: 2_000 }), { maxLength: 4 }),
        maxSelect: fc.integer({ min: 1, max: 3 }),
      }),
      { numRuns: 8, seed: 4711 },
    );
    for (const [i, spec] of specs.entries()) {
      const product = await ok(t, tenant.token, 'POST', '/menu/products', {
        name: `Product ${i}`,
        price: spec.price,
        tax_class: spec.taxClass,
      });
      const options = [];
      if (spec.deltas.length > 0) {
        const group = await ok(t, tenant.token, 'POST', '/menu/option-groups', {
          name: `Choice ${i}`,
          min_select: 0,
          max_select: spec.maxSelect,
          product_id: product.id,
        });
        for (const [j, delta] of spec.deltas.entries()) {
          const option = await ok(t, tenant.token, 'POST', `/menu/option-groups/${group.id}/options`, {
            name: `Option ${i}.${j}`,
            price_delta: delta,
          });
          options.push({ id: option.id, delta });
        }
      }
      menu.push({
        id: product.id,
        price: spec.price,
        taxClass: spec.taxClass,
        options,
        maxSelect: spec.maxSelect,
      });
    }
    assert.equal(new Set(menu.map((product) => product.taxClass)).size, 3);
  });
  after(() => t.close());

  const cart = fc.record({
    type: fc.constantFrom('pickup', 'delivery'),
    tip: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100_000 })),
    lines: fc.array(
      fc
        .record({
          product: fc.nat({ max: 7 }),
          quantity: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 99 })),
          picks: fc.array(fc.nat({ max: 3 }), { maxLength: 3 }),
        })
        .map(({ product, quantity, picks }) => {
          const chosen = menu[product] as MenuProduct;
          // Distinct options of the product's own group, at most its max_select.
          const options = [
            ...new Set(picks.map((pick) => chosen.options[pick % Math.max(1, chosen.options.length)])),
          ]
            .filter((option) => option !== undefined)
            .slice(0, chosen.maxSelect);
          return { product: chosen, quantity, options };
        }),
      { minLength: 1, maxLength: 8 },
    ),
  });

  it('keep the spec’s amounts, item totals and tax lines (40 carts)', async () => {
    await fc.assert(
      fc.asyncProperty(cart, async ({ type, tip, lines }) => {
        const expectedItems = lines.map(({ product, quantity, options }) => {
          const unitPrice = product.price + options.reduce((sum, option) => sum + option.delta, 0);
          return { unitPrice, lineTotal: unitPrice * quantity, rate: takeawayRate[product.taxClass] };
        });
        const subtotal = expectedItems.reduce((sum, item) => sum + item.lineTotal, 0);
        const placed = await guest(t, tenant.slug, 'POST', '/orders', {
          type,
          items: lines.map(({ product, quantity, options }) => ({
            product_id: product.id,
            quantity,
            option_ids: options.map((option) => option.id),
          })),
          ...(type === 'delivery' && {
            delivery: { address: 'Rue de la Loi 16', postal_code: '1000', city: 'Bruxelles' },
          }),
          tip,
          payment_method: 'on_site',
          // The guest saw the menu's total: the order must agree with it.
          expected_total: subtotal + tip,
        });
        assert.equal(placed.statusCode, 201, placed.body);
        const order = await ok(t, reader, 'GET', `/orders/${placed.json().order.id}`);

        order.items.forEach(
          (
            item: { quantity: number; unit_price: number; line_total: number; tax_rate_bps: number | null },
            i: number,
          ) => {
            const expected = expectedItems[i] as (typeof expectedItems)[number];
            assert.equal(item.unit_price, expected.unitPrice);
            assert.equal(item.line_total, item.unit_price * item.quantity);
            assert.equal(item.line_total, expected.lineTotal);
            assert.equal(item.tax_rate_bps, expected.rate);
          },
        );
        const { amounts, tax } = order;
        assert.equal(
          amounts.subtotal,
          order.items.reduce((sum: number, item: { line_total: number }) => sum + item.line_total, 0),
        );
        assert.equal(amounts.subtotal, subtotal);
        assert.equal(amounts.tip, tip);
        assert.equal(
          amounts.total,
          amounts.subtotal + amounts.delivery_fee + amounts.service_fee - amounts.discount + amounts.tip,
        );
        assert.equal(tax.included, true);

        type Line = { rate_bps: number | null; gross: number; net: number | null; tax: number | null };
        const taxLines = tax.lines as Line[];
        const rates = taxLines.map((line) => line.rate_bps);
        const ordered = [...rates].sort((a, b) => (a === null ? 1 : b === null ? -1 : a - b));
        assert.deepEqual(rates, ordered, 'ascending by rate, no rate last');
        assert.equal(new Set(rates).size, rates.length, 'one line per rate');
        assert.equal(
          taxLines.reduce((sum, line) => sum + line.gross, 0),
          amounts.total - amounts.tip,
        );
        for (const line of taxLines) {
          assert.ok(line.gross > 0);
          if (line.rate_bps === null) {
            assert.equal(line.tax, null);
            assert.equal(line.net, null);
          } else {
            assert.equal(line.tax, taxOf(line.gross, line.rate_bps));
            assert.equal(line.net, line.gross - (line.tax as number));
          }
          // Without fees or discount, a rate's gross is its items' line totals.
          const itemGross = expectedItems
            .filter((item) => item.rate === line.rate_bps)
            .reduce((sum, item) => sum + item.lineTotal, 0);
          assert.equal(line.gross, itemGross);
        }
        // Every rate with a gross above 0 has its line.
        const expectedRates = new Set(
          expectedItems.filter((item) => item.lineTotal > 0).map((item) => item.rate),
        );
        assert.equal(taxLines.length, expectedRates.size);
      }),
      { numRuns: 40, endOnFailure: true },
    );
  });
});

describe('the documented order event examples', () => {
  it('are Orders that keep the same rules: their amounts and tax lines are orderMoney’s', () => {
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    const isOrder = ajv.compile(OrderSchema);
    const audience = { tenantId: '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1c99', connectionId: null };
    for (const type of ['order.created', 'order.status_changed', 'order.cancelled', 'order.paid'] as const) {
      const order = JSON.parse(JSON.stringify(eventExample(type, audience).object));
      assert.ok(isOrder(order), `${type}: ${ajv.errorsText(isOrder.errors)}`);
      for (const item of order.items) {
        assert.equal(item.line_total, item.unit_price * item.quantity, type);
      }
      const { amounts } = order;
      assert.deepEqual(
        { amounts, tax: order.tax },
        orderMoney(order.items, {
          delivery_fee: amounts.delivery_fee,
          service_fee: amounts.service_fee,
          discount: amounts.discount,
          tip: amounts.tip,
        }),
        type,
      );
      // Events show no app's acknowledgement; an online order is in the API (and its events) once paid.
      assert.equal(order.external_id, null);
      assert.equal(order.acknowledged_at, null);
      assert.equal(order.payment.status, 'paid');
      assert.equal(order.cancellation === null, order.status !== 'cancelled', type);
    }
  });
});
