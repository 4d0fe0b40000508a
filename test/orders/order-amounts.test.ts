import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type Charges,
  type OrderMoney,
  orderMoney,
  type PricedLine,
} from '../../src/domain/orders/order-amounts.ts';

/*
 * An order's amounts and VAT lines (spec: Order, `amounts` and `tax`; the allocation rule atop
 * order-amounts.ts): properties over random carts, each checked against an independent computation
 * in BigInt; worked examples computed by hand; the inputs refused.
 */

const rate = fc.oneof(
  fc.constantFrom(null, 0, 500, 700, 1000, 1900, 2000, 2200),
  fc.integer({ min: 0, max: 2500 }),
);
// Small amounts too, so that equal remainders (the tie-break) and halves (the rounding) come up.
const amount = (max: number) => fc.oneof(fc.integer({ min: 0, max }), fc.integer({ min: 0, max: 5 }));
const line: fc.Arbitrary<PricedLine> = fc.record({ line_total: amount(500_000), tax_rate_bps: rate });

function cartOf(lines: fc.Arbitrary<PricedLine[]>): fc.Arbitrary<{ lines: PricedLine[]; charges: Charges }> {
  return fc
    .record({ lines, delivery_fee: amount(10_000), service_fee: amount(10_000), tip: amount(10_000) })
    .chain(({ lines, delivery_fee, service_fee, tip }) => {
      const max = lines.reduce((sum, l) => sum + l.line_total, 0) + delivery_fee + service_fee;
      return fc
        .oneof(fc.integer({ min: 0, max }), fc.constant(max), fc.integer({ min: Math.max(0, max - 5), max }))
        .map((discount) => ({ lines, charges: { delivery_fee, service_fee, discount, tip } }));
    });
}

const cart = cartOf(fc.array(line, { minLength: 1, maxLength: 30 }));
const runs = { numRuns: 2000 };

/** The groups by rate, with their item gross and their exact share of total − tip as n / d. */
function exactShares(lines: readonly PricedLine[], money: OrderMoney) {
  const subtotal = BigInt(money.amounts.subtotal);
  const taxable = BigInt(money.amounts.total - money.amounts.tip);
  const byRate = new Map<number | null, bigint>();
  for (const l of lines)
    byRate.set(l.tax_rate_bps, (byRate.get(l.tax_rate_bps) ?? 0n) + BigInt(l.line_total));
  return [...byRate].map(([rate, itemGross]) => {
    const gross = BigInt(money.tax.lines.find((l) => l.rate_bps === rate)?.gross ?? 0);
    return { rate, itemGross, gross, n: taxable * itemGross, d: subtotal };
  });
}

const abs = (n: bigint) => (n < 0n ? -n : n);

describe('orderMoney: properties over random carts', () => {
  test('subtotal = Σ line_total; total = subtotal + delivery_fee + service_fee − discount + tip', () => {
    fc.assert(
      fc.property(cart, ({ lines, charges }) => {
        const { amounts } = orderMoney(lines, charges);
        const subtotal = lines.reduce((sum, l) => sum + l.line_total, 0);
        const { delivery_fee, service_fee, discount, tip } = charges;
        assert.deepEqual(amounts, {
          subtotal,
          delivery_fee,
          service_fee,
          discount,
          tip,
          total: subtotal + delivery_fee + service_fee - discount + tip,
        });
      }),
      runs,
    );
  });

  test('the gross amounts add up to total − tip, each line above 0', () => {
    fc.assert(
      fc.property(cart, ({ lines, charges }) => {
        const { amounts, tax } = orderMoney(lines, charges);
        assert.equal(
          tax.lines.reduce((sum, l) => sum + l.gross, 0),
          amounts.total - amounts.tip,
        );
        for (const l of tax.lines) assert.ok(l.gross > 0, `line at ${l.rate_bps} has gross ${l.gross}`);
        assert.equal(tax.included, true);
      }),
      runs,
    );
  });

  test('lines strictly ascending by rate, the line without rate last, only rates of the items', () => {
    fc.assert(
      fc.property(cart, ({ lines, charges }) => {
        const rates = orderMoney(lines, charges).tax.lines.map((l) => l.rate_bps);
        const numeric = rates.filter((r) => r !== null);
        for (let i = 1; i < numeric.length; i++)
          assert.ok((numeric[i - 1] as number) < (numeric[i] as number));
        assert.ok(rates.indexOf(null) === -1 || rates.indexOf(null) === rates.length - 1, `${rates}`);
        const itemRates = new Set(lines.map((l) => l.tax_rate_bps));
        // No items of any value: the only line is the one without rate.
        const allZero = lines.every((l) => l.line_total === 0);
        for (const r of rates) assert.ok(allZero ? r === null : itemRates.has(r), `rate ${r} of no item`);
      }),
      runs,
    );
  });

  test('tax = round(gross × rate / (10000 + rate)), halves up; net = gross − tax; null without rate', () => {
    fc.assert(
      fc.property(cart, ({ lines, charges }) => {
        for (const l of orderMoney(lines, charges).tax.lines) {
          if (l.rate_bps === null) {
            assert.deepEqual(l, { rate_bps: null, gross: l.gross, net: null, tax: null });
            continue;
          }
          const n = BigInt(l.gross) * BigInt(l.rate_bps);
          const d = 10000n + BigInt(l.rate_bps);
          const tax = n / d + (2n * (n % d) >= d ? 1n : 0n);
          assert.equal(l.tax, Number(tax));
          assert.equal(l.net, l.gross - Number(tax));
        }
      }),
      runs,
    );
  });

  test("each group's gross is its exact share of total − tip, within less than 1", () => {
    fc.assert(
      fc.property(cart, ({ lines, charges }) => {
        const money = orderMoney(lines, charges);
        if (money.amounts.subtotal === 0) return;
        // Every group whose exact share reaches 1 has its line, the rate 0 apart from null.
        for (const { rate, gross, n, d } of exactShares(lines, money))
          assert.ok(abs(gross * d - n) < d, `rate ${rate}: gross ${gross}, exact ${n}/${d}`);
      }),
      runs,
    );
  });

  test('units left over go to the largest remainders, then the higher item gross, then the lower rate', () => {
    fc.assert(
      fc.property(cart, ({ lines, charges }) => {
        const money = orderMoney(lines, charges);
        if (money.amounts.subtotal === 0) return;
        const groups = exactShares(lines, money).map((g) => ({
          ...g,
          up: g.gross > g.n / g.d,
          remainder: g.n % g.d,
        }));
        // Claim order: remainder desc, item gross desc, rate asc with null above every rate.
        const before = (a: (typeof groups)[number], b: (typeof groups)[number]) =>
          a.remainder !== b.remainder
            ? a.remainder > b.remainder
            : a.itemGross !== b.itemGross
              ? a.itemGross > b.itemGross
              : a.rate !== null && (b.rate === null || a.rate < b.rate);
        for (const up of groups.filter((g) => g.up))
          for (const down of groups.filter((g) => !g.up && g.remainder > 0n))
            assert.ok(before(up, down), `rate ${up.rate} got a unit before rate ${down.rate}`);
      }),
      runs,
    );
  });

  test('items totalling 0: fees less discount on one line without rate, or no line', () => {
    const zeroLines = fc.array(
      line.map((l) => ({ ...l, line_total: 0 })),
      { minLength: 0, maxLength: 30 },
    );
    fc.assert(
      fc.property(cartOf(zeroLines), ({ lines, charges }) => {
        const { amounts, tax } = orderMoney(lines, charges);
        const taxable = amounts.total - amounts.tip;
        assert.deepEqual(
          tax.lines,
          taxable === 0 ? [] : [{ rate_bps: null, gross: taxable, net: null, tax: null }],
        );
      }),
      runs,
    );
  });
});

describe('orderMoney: worked examples', () => {
  test('food at 7 %, a drink at 19 %, delivery 250, discount 100, tip 200', () => {
    // Items 1290 + 450 = 1740; total − tip = 1740 + 250 − 100 = 1890.
    // Exact shares: 1890 × 1290 / 1740 = 1401.207, 1890 × 450 / 1740 = 488.793; rounded down 1401
    // and 488 leave 1 unit, for the larger remainder (19 %): 1401 and 489.
    // 7 %: tax = round(1401 × 700 / 10700) = round(91.654) = 92, net 1309.
    // 19 %: tax = round(489 × 1900 / 11900) = round(78.076) = 78, net 411.
    const money = orderMoney(
      [
        { line_total: 1290, tax_rate_bps: 700 },
        { line_total: 450, tax_rate_bps: 1900 },
      ],
      { delivery_fee: 250, service_fee: 0, discount: 100, tip: 200 },
    );
    assert.deepEqual(money, {
      amounts: { subtotal: 1740, delivery_fee: 250, service_fee: 0, discount: 100, tip: 200, total: 2090 },
      tax: {
        included: true,
        lines: [
          { rate_bps: 700, gross: 1401, net: 1309, tax: 92 },
          { rate_bps: 1900, gross: 489, net: 411, tax: 78 },
        ],
      },
    });
  });

  test('lines by rate ascending, 0 % apart from no rate and before it; several items per rate', () => {
    const money = orderMoney(
      [
        { line_total: 300, tax_rate_bps: null },
        { line_total: 1100, tax_rate_bps: 1000 },
        { line_total: 500, tax_rate_bps: 0 },
        { line_total: 1100, tax_rate_bps: 1000 },
      ],
      { delivery_fee: 0, service_fee: 0, discount: 0, tip: 0 },
    );
    // 10 %: 2200 gross, tax = 2200 × 1000 / 11000 = 200 exactly.
    assert.deepEqual(money.tax.lines, [
      { rate_bps: 0, gross: 500, net: 500, tax: 0 },
      { rate_bps: 1000, gross: 2200, net: 2000, tax: 200 },
      { rate_bps: null, gross: 300, net: null, tax: null },
    ]);
  });

  test('a half rounds up: 3 at 20 % has a tax of 0.5, so 1; 9 at 20 %: 1.5, so 2', () => {
    const taxOf = (gross: number) =>
      orderMoney([{ line_total: gross, tax_rate_bps: 2000 }], {
        delivery_fee: 0,
        service_fee: 0,
        discount: 0,
        tip: 0,
      }).tax.lines;
    assert.deepEqual(taxOf(3), [{ rate_bps: 2000, gross: 3, net: 2, tax: 1 }]);
    assert.deepEqual(taxOf(9), [{ rate_bps: 2000, gross: 9, net: 7, tax: 2 }]);
  });

  test('equal remainders: the higher item gross, then the lower rate, no rate counting as highest', () => {
    const noCharges = { delivery_fee: 0, service_fee: 0, discount: 0, tip: 0 };
    // 100 at 7 %, 100 at 19 %, a fee of 1: 100.5 each; equal gross, so 7 % gets the unit.
    const equal = orderMoney(
      [
        { line_total: 100, tax_rate_bps: 1900 },
        { line_total: 100, tax_rate_bps: 700 },
      ],
      { ...noCharges, delivery_fee: 1 },
    );
    assert.deepEqual(
      equal.tax.lines.map((l) => l.gross),
      [101, 100],
    );
    // 100 without rate and 100 at 19 %: 19 % is the lower rate.
    const withNull = orderMoney(
      [
        { line_total: 100, tax_rate_bps: null },
        { line_total: 100, tax_rate_bps: 1900 },
      ],
      { ...noCharges, service_fee: 1 },
    );
    assert.deepEqual(
      withNull.tax.lines.map((l) => [l.rate_bps, l.gross]),
      [
        [1900, 101],
        [null, 100],
      ],
    );
    // 100 at 7 %, 300 at 19 %, a fee of 2: 402 × 100 / 400 = 100.5, 402 × 300 / 400 = 301.5; equal
    // remainders, so the higher item gross (19 %) gets the unit before the lower rate.
    const higherGross = orderMoney(
      [
        { line_total: 100, tax_rate_bps: 700 },
        { line_total: 300, tax_rate_bps: 1900 },
      ],
      { ...noCharges, delivery_fee: 2 },
    );
    assert.deepEqual(
      higherGross.tax.lines.map((l) => l.gross),
      [100, 302],
    );
    // 2 at 7 % and 4 at 19 %, a fee of 1: 7 × 2 / 6 = 2.333, 7 × 4 / 6 = 4.667; the larger
    // remainder (19 %) comes before the lower rate.
    const remainders = orderMoney(
      [
        { line_total: 2, tax_rate_bps: 700 },
        { line_total: 4, tax_rate_bps: 1900 },
      ],
      { ...noCharges, delivery_fee: 1 },
    );
    assert.deepEqual(
      remainders.tax.lines.map((l) => l.gross),
      [2, 5],
    );
  });

  test('the example that rounding each charge apart would take below 0', () => {
    // 1 at 7 %, 1 at 19 %, fees 1 and 1, discount 4: total − tip = 0, no lines.
    const money = orderMoney(
      [
        { line_total: 1, tax_rate_bps: 700 },
        { line_total: 1, tax_rate_bps: 1900 },
      ],
      { delivery_fee: 1, service_fee: 1, discount: 4, tip: 50 },
    );
    assert.equal(money.amounts.total, 50);
    assert.deepEqual(money.tax.lines, []);
  });

  test('no items: the fees less discount on one line without rate; an order totalling 0 has no lines', () => {
    assert.deepEqual(
      orderMoney([], { delivery_fee: 300, service_fee: 50, discount: 100, tip: 0 }).tax.lines,
      [{ rate_bps: null, gross: 250, net: null, tax: null }],
    );
    assert.deepEqual(
      orderMoney([{ line_total: 0, tax_rate_bps: 700 }], {
        delivery_fee: 300,
        service_fee: 0,
        discount: 0,
        tip: 0,
      }).tax.lines,
      [{ rate_bps: null, gross: 300, net: null, tax: null }],
    );
    const zero = orderMoney([{ line_total: 500, tax_rate_bps: 700 }], {
      delivery_fee: 0,
      service_fee: 0,
      discount: 500,
      tip: 0,
    });
    assert.equal(zero.amounts.total, 0);
    assert.deepEqual(zero.tax.lines, []);
  });

  test('an item of 0 at a rate of its own has no line', () => {
    const money = orderMoney(
      [
        { line_total: 0, tax_rate_bps: 1900 },
        { line_total: 1070, tax_rate_bps: 700 },
      ],
      { delivery_fee: 0, service_fee: 0, discount: 0, tip: 0 },
    );
    assert.deepEqual(money.tax.lines, [{ rate_bps: 700, gross: 1070, net: 1000, tax: 70 }]);
  });

  test('large amounts are exact: gross × rate beyond 2^53', () => {
    // 2^52 at 25 %: tax = 2^52 × 2500 / 12500 = 2^52 / 5 = 900719925474099.2, so …099.
    const gross = 2 ** 52;
    const [taxLine] = orderMoney([{ line_total: gross, tax_rate_bps: 2500 }], {
      delivery_fee: 0,
      service_fee: 0,
      discount: 0,
      tip: 0,
    }).tax.lines;
    assert.deepEqual(taxLine, { rate_bps: 2500, gross, net: gross - 900719925474099, tax: 900719925474099 });
  });
});

describe('orderMoney: refused inputs', () => {
  const charges: Charges = { delivery_fee: 0, service_fee: 0, discount: 0, tip: 0 };
  const item: PricedLine = { line_total: 100, tax_rate_bps: 700 };

  test('a discount above subtotal + delivery_fee + service_fee', () => {
    assert.doesNotThrow(() =>
      orderMoney([item], { ...charges, delivery_fee: 20, service_fee: 5, discount: 125 }),
    );
    assert.throws(
      () => orderMoney([item], { ...charges, delivery_fee: 20, service_fee: 5, discount: 126 }),
      /discount 126 exceeds/,
    );
  });

  test('negative, fractional, non-finite or unsafe amounts and rates', () => {
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      assert.throws(() => orderMoney([{ ...item, line_total: bad }], charges), /line_total/);
      assert.throws(() => orderMoney([{ ...item, tax_rate_bps: bad }], charges), /tax_rate_bps/);
      for (const name of ['delivery_fee', 'service_fee', 'discount', 'tip'] as const)
        assert.throws(() => orderMoney([item], { ...charges, [name]: bad }), new RegExp(name));
    }
  });

  test('a total beyond the safe integers', () => {
    const half = Number.MAX_SAFE_INTEGER;
    assert.throws(() => orderMoney([item], { ...charges, tip: half }), /total/);
  });
});
