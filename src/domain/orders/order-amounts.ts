/*
 * An order's amounts and VAT lines (spec: Order, `amounts` and `tax`), prices including VAT, every
 * amount an integer in minor units.
 *
 * - subtotal = Σ line_total; total = subtotal + delivery_fee + service_fee − discount + tip.
 * - The items form one group per rate: 0 is a rate of its own, the items without a rate (null) form
 *   one group. A group's item gross is the sum of its line totals.
 * - The delivery fee, the service fee and the discount are each shared among the groups in
 *   proportion to their item gross, so a group's exact share of total − tip (the tip is not revenue
 *   and is on no line) is (total − tip) × item gross / subtotal.
 * - These exact shares are rounded once per group, by the largest-remainder method: each group gets
 *   its share rounded down, then the units left over go, one each, to the groups with the largest
 *   remainders; on equal remainders to the group with the higher item gross, then to the lower rate
 *   (no rate counts as above every rate). The lines' gross amounts thus add up exactly to
 *   total − tip, none is negative, and each differs from its exact share by less than 1.
 *   Rounding each charge apart instead could take a group below 0 (items of 1 at 7 % and 1 at 19 %,
 *   fees of 1 and 1, a discount of 4: both fees' odd units go to 7 %, the 19 % group ends at −1).
 * - An order without items, or whose items total 0, puts its fees less its discount on a single
 *   line without rate.
 * - A line whose gross comes to 0 is left out: an order whose total less tip is 0 has no lines.
 * - Per line: tax = round(gross × rate / (10000 + rate)), halves away from zero; net = gross − tax;
 *   both null without a rate.
 * Computed with BigInt, so products such as gross × rate are exact at any size; every input must be
 * a non-negative safe integer, the discount at most subtotal + fees, and the total a safe integer
 * (otherwise a plain Error: callers check first).
 */

export interface PricedLine {
  readonly line_total: number;
  readonly tax_rate_bps: number | null;
}
export interface Charges {
  readonly delivery_fee: number;
  readonly service_fee: number;
  readonly discount: number;
  readonly tip: number;
}
export interface Amounts {
  subtotal: number;
  delivery_fee: number;
  service_fee: number;
  discount: number;
  tip: number;
  total: number;
}
export interface TaxLine {
  rate_bps: number | null;
  gross: number;
  net: number | null;
  tax: number | null;
}
export interface OrderMoney {
  amounts: Amounts;
  tax: { included: true; lines: TaxLine[] };
}

interface Group {
  readonly rate: number | null;
  readonly itemGross: bigint;
}

export function orderMoney(lines: readonly PricedLine[], charges: Charges): OrderMoney {
  checkInputs(lines, charges);
  const { delivery_fee, service_fee, discount, tip } = charges;
  const subtotal = lines.reduce((sum, line) => sum + BigInt(line.line_total), 0n);
  const beforeDiscount = subtotal + BigInt(delivery_fee) + BigInt(service_fee);
  if (BigInt(discount) > beforeDiscount)
    throw new Error(`discount ${discount} exceeds subtotal + delivery_fee + service_fee (${beforeDiscount})`);
  const taxable = beforeDiscount - BigInt(discount);
  const total = safe(taxable + BigInt(tip), 'total');

  const groups = subtotal === 0n ? [{ rate: null, itemGross: 1n }] : groupsByRate(lines);
  const grosses = largestRemainder(taxable, groups);
  const taxLines = groups
    .map((group, i) => taxLine(group.rate, grosses[i] ?? 0n))
    .filter((line) => line.gross > 0);
  return {
    amounts: { subtotal: Number(subtotal), delivery_fee, service_fee, discount, tip, total },
    tax: { included: true, lines: taxLines },
  };
}

function checkInputs(lines: readonly PricedLine[], charges: Charges): void {
  for (const line of lines) {
    checkAmount(line.line_total, 'line_total');
    if (line.tax_rate_bps !== null) checkAmount(line.tax_rate_bps, 'tax_rate_bps');
  }
  for (const name of ['delivery_fee', 'service_fee', 'discount', 'tip'] as const)
    checkAmount(charges[name], name);
}

function checkAmount(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative safe integer, got ${value}`);
}

function safe(value: bigint, name: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Error(`${name} ${value} exceeds the safe integer range`);
  return Number(value);
}

/** Rates ascending, no rate (null) last: the lines' order, and the tie-break "lower rate first". */
function compareRates(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

function groupsByRate(lines: readonly PricedLine[]): Group[] {
  const byRate = new Map<number | null, bigint>();
  for (const line of lines)
    byRate.set(line.tax_rate_bps, (byRate.get(line.tax_rate_bps) ?? 0n) + BigInt(line.line_total));
  return [...byRate]
    .map(([rate, itemGross]) => ({ rate, itemGross }))
    .sort((a, b) => compareRates(a.rate, b.rate));
}

/** `amount` split in proportion to the groups' item gross (not all 0), adding up exactly. */
function largestRemainder(amount: bigint, groups: readonly Group[]): bigint[] {
  const whole = groups.reduce((sum, group) => sum + group.itemGross, 0n);
  const shares = groups.map((group) => amount * group.itemGross);
  const parts = shares.map((share) => share / whole);
  const leftOver = amount - parts.reduce((sum, part) => sum + part, 0n);
  const byClaim = groups
    .map((group, i) => ({ i, group, remainder: (shares[i] ?? 0n) % whole }))
    .sort(
      (a, b) =>
        compareBigints(b.remainder, a.remainder) ||
        compareBigints(b.group.itemGross, a.group.itemGross) ||
        compareRates(a.group.rate, b.group.rate),
    );
  // Fewer units are left over than there are groups with a remainder, so each gets at most one.
  for (const { i } of byClaim.slice(0, Number(leftOver))) parts[i] = (parts[i] ?? 0n) + 1n;
  return parts;
}

function compareBigints(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function taxLine(rate: number | null, gross: bigint): TaxLine {
  if (rate === null) return { rate_bps: null, gross: Number(gross), net: null, tax: null };
  const divisor = 10000n + BigInt(rate);
  // round(gross × rate / divisor), halves up (away from zero, all being non-negative).
  const tax = (2n * gross * BigInt(rate) + divisor) / (2n * divisor);
  return { rate_bps: rate, gross: Number(gross), net: Number(gross - tax), tax: Number(tax) };
}
