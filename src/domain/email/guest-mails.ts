import type { TFunction } from 'i18next';
import { DateTime } from 'luxon';
import type { Locale } from '../../i18n/i18n.ts';
import { type ReceiptView, receiptView } from '../orders/receipt-view.ts';
import { renderHtml } from './email-html.ts';
import type { GuestMailContent } from './email-templates.ts';

/*
 * The mails to guests about their orders and a cancelled reservation, as plain text and as HTML
 * (multipart/alternative): the same words (the `email` catalog), the HTML with the receipt as a
 * table. Times in the restaurant's zone, amounts in its currency, all in the locale given.
 */

interface Parts {
  subject: string;
  text: string;
  html: string;
}

/** The receipt as text lines: items, totals, VAT, payment, the restaurant. */
function receiptText(view: ReceiptView, t: TFunction): string {
  return [
    t('receipt.heading'),
    t('receipt.placed', { when: view.placed }),
    '',
    ...view.items.map(
      (item) => `${item.quantity} × ${item.name}${item.options ? ` (${item.options})` : ''}: ${item.amount}`,
    ),
    '',
    ...view.totals.map((line) => `${line.label}: ${line.amount}`),
    ...view.vat.map((vat) => `${vat.label}: ${vat.tax}`),
    view.payment,
    '',
    view.restaurant.name,
    ...(view.restaurant.address ? [view.restaurant.address] : []),
    ...(view.restaurant.vatId ? [view.restaurant.vatId] : []),
  ].join('\n');
}

/** The subject, text and HTML of a guest's mail. */
export function renderGuestMail(email: GuestMailContent, locale: Locale, t: TFunction): Parts {
  const { template, params } = email;
  const at = (iso: string) =>
    DateTime.fromISO(iso, { zone: params.timezone }).setLocale(locale).toLocaleString(DateTime.DATETIME_MED);
  const words: Record<string, unknown> = { ...params };
  if (template === 'reservationCancelled') words.when = at(params.starts_at);
  const subject = t(`${template}.subject`, words);
  const heading = t(`${template}.heading`, words);
  const paragraphs: string[] = [t(`${template}.body`, words)];
  let link: { href: string; text: string } | undefined;
  let printLink: { href: string; text: string } | undefined;
  let receipt: ReceiptView | undefined;
  let code: { label: string; value: string } | undefined;
  if (template === 'orderPlaced') {
    receipt = receiptView(params.receipt, locale, t);
    code = { label: t('orderCode'), value: params.code };
    if (params.order_url) link = { href: params.order_url, text: t('orderLink') };
    if (params.receipt_url) printLink = { href: params.receipt_url, text: t('receipt.print') };
  } else if (template === 'orderAccepted') {
    if (params.ready_at) paragraphs.push(t('orderAccepted.ready', { time: at(params.ready_at) }));
  } else if (template !== 'reservationCancelled' && params.reason) {
    paragraphs.push(t('orderReason', { reason: params.reason }));
  }
  const text = [
    ...paragraphs,
    ...(code ? [`${code.label}: ${code.value}`] : []),
    ...(link ? [`${link.text}: ${link.href}`] : []),
    ...(receipt ? ['', receiptText(receipt, t)] : []),
    ...(printLink ? ['', `${printLink.text}: ${printLink.href}`] : []),
  ].join('\n');
  const html = renderHtml('guest-mail', {
    lang: locale,
    title: subject,
    restaurant: params.restaurant,
    heading,
    paragraphs,
    code,
    link,
    receipt,
    printLink,
    labels: receipt && {
      heading: t('receipt.heading'),
      placed: t('receipt.placed', { when: receipt.placed }),
      items: t('receipt.items'),
      item: t('receipt.item'),
      amount: t('receipt.amount'),
    },
  });
  return { subject, text: `${text}\n`, html };
}
