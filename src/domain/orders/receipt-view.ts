import type { TFunction } from 'i18next';
import type { Locale } from '../../i18n/i18n.ts';
import { formatDateTime } from '../../i18n/local-time.ts';
import { formatMoney } from '../../i18n/money.ts';
import type { Receipt } from './order-receipt.ts';

/*
 * A receipt as its reader sees it, every amount and time formatted in the restaurant's language
 * and currency, its words from the `email` catalog (`receipt.*`): what the mail's text and HTML and
 * the storefront's print view draw, each in its own way.
 */
export interface ReceiptView {
  code: string;
  placed: string;
  items: { quantity: number; name: string; options: string; amount: string }[];
  /** Subtotal, the fees, discount and tip there are, then the total (last). */
  totals: { label: string; amount: string }[];
  /** The VAT included, a line per rate: `incl. 19 % VAT`, the tax, of the gross. */
  vat: { label: string; tax: string; gross: string }[];
  payment: string;
  restaurant: { name: string; address: string | null; vatId: string | null };
}

export function receiptView(receipt: Receipt, locale: Locale, t: TFunction): ReceiptView {
  const money = (minor: number) => formatMoney(minor, receipt.currency, locale);
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 });
  const { amounts } = receipt;
  const extras = [
    ['deliveryFee', amounts.delivery_fee],
    ['serviceFee', amounts.service_fee],
    ['discount', -amounts.discount],
    ['tip', amounts.tip],
  ] as const;
  return {
    code: receipt.code,
    placed: formatDateTime(receipt.placed_at, receipt.timezone, locale),
    items: receipt.items.map((item) => ({
      quantity: item.quantity,
      name: item.name,
      options: item.options.join(', '),
      amount: money(item.line_total),
    })),
    totals: [
      { label: t('receipt.subtotal'), amount: money(amounts.subtotal) },
      ...extras
        .filter(([, amount]) => amount !== 0)
        .map(([key, amount]) => ({ label: t(`receipt.${key}`), amount: money(amount) })),
      { label: t('receipt.total'), amount: money(amounts.total) },
    ],
    vat: receipt.tax_lines.flatMap((line) =>
      line.rate_bps === null || line.tax === null
        ? []
        : [
            {
              label: t('receipt.vat', { rate: percent.format(line.rate_bps / 10_000) }),
              tax: money(line.tax),
              gross: money(line.gross),
            },
          ],
    ),
    payment: t(
      receipt.payment.method === 'on_site'
        ? 'receipt.payOnSite'
        : receipt.payment.paid
          ? 'receipt.paidOnline'
          : 'receipt.payOnline',
    ),
    restaurant: {
      name: receipt.restaurant.name,
      address: receipt.restaurant.address,
      vatId: receipt.restaurant.vat_id && t('receipt.vatId', { id: receipt.restaurant.vat_id }),
    },
  };
}
