import { DateTime } from 'luxon';
import { pickLocale, translator } from '../../i18n/i18n.ts';
import type { Receipt } from '../orders/order-receipt.ts';
import { reservationCalendar } from '../reservations/reservation-calendar.ts';
import type { Scope } from '../shared/scopes.ts';
import { renderGuestMail } from './guest-mails.ts';

/*
 * The e-mails Servery sends, as templates: the queue keeps a template's name, its parameters and
 * the recipient's locale, and the worker renders it (renderEmail) with the texts of the `email`
 * namespace (src/i18n/<locale>/email.json), so no text is composed where a mail is queued.
 */
export interface EmailTemplates {
  /** To the owners: an app was connected to their restaurant. */
  appConnected: { app: string; restaurant: string; scopes: Scope[] };
  /** To the owners: a connected app was allowed more (the added scopes). */
  appScopesAdded: { app: string; restaurant: string; scopes: Scope[] };
  /** To the owners: an app ended its connection. */
  appDisconnected: { app: string; restaurant: string };
  /** To the owners: their restaurant's own webhook was switched off (`since`: ISO 8601). */
  restaurantWebhookSwitchedOff: { url: string; failures: number; since: string };
  /** To the developer: the app's webhook was switched off (`since`: ISO 8601). */
  appWebhookSwitchedOff: { app: string; url: string; failures: number; since: string };
  /** To someone invited to a restaurant's team: the link to join (working for `days` days). */
  teamInvitation: { restaurant: string; role: 'owner' | 'staff'; url: string; days: number };
  /** To a guest: the restaurant confirmed the reservation (with a calendar file). */
  reservationConfirmed: ReservationMail;
  /** To a guest: the reservation request awaits the restaurant (with a calendar file). */
  reservationRequested: ReservationMail;
  /** To a guest: their reservation was cancelled (by them, the restaurant or an app). */
  reservationCancelled: Pick<
    ReservationMail,
    'restaurant' | 'code' | 'starts_at' | 'party_size' | 'timezone'
  >;
  /** To a guest: the order's confirmation with its receipt and, where known, links to its page and print view. */
  orderPlaced: OrderMail & { receipt: Receipt; order_url?: string; receipt_url?: string };
  /** To a guest: the restaurant accepted the order; `ready_at` (ISO 8601) when known. */
  orderAccepted: OrderMail & { ready_at: string | null };
  /** To a guest: the restaurant rejected the order, or it was cancelled; the reason when given. */
  orderRejected: OrderMail & { reason: string | null };
  orderCancelled: OrderMail & { reason: string | null };
  /** To an account: the link to set a new password (`minutes`: how long it works). */
  passwordReset: { url: string; minutes: number };
  /** To the new address of an account: the link that confirms it. */
  emailChangeRequested: { url: string; email: string; minutes: number };
  /** To the old address of an account: it was changed to `email`. */
  emailChanged: { email: string };
}

/** An order's mail: the restaurant, the order's code, the restaurant's time zone. */
interface OrderMail {
  restaurant: string;
  code: string;
  timezone: string;
}

/** A reservation's e-mail: instants as ISO 8601, shown in the restaurant's time zone. */
interface ReservationMail {
  restaurant: string;
  reservation_id: string;
  code: string;
  starts_at: string;
  duration_minutes: number;
  party_size: number;
  timezone: string;
  created_at: string;
  /** The guest's link to cancel (storefront bookings): the mail ends with it. */
  cancel_url?: string;
}
export type EmailTemplate = keyof EmailTemplates;

/** A template with its parameters. */
export type EmailContent = {
  [T in EmailTemplate]: { template: T; params: EmailTemplates[T] };
}[EmailTemplate];

/** The mails to guests with a text and an HTML part (guest-mails.ts). */
export type GuestMailContent = Extract<
  EmailContent,
  { template: 'reservationCancelled' | 'orderPlaced' | 'orderAccepted' | 'orderRejected' | 'orderCancelled' }
>;
const guestMails: ReadonlySet<EmailTemplate> = new Set<GuestMailContent['template']>([
  'reservationCancelled',
  'orderPlaced',
  'orderAccepted',
  'orderRejected',
  'orderCancelled',
]);

/** A queued e-mail (job kind `email`). */
export type QueuedEmail = EmailContent & { to: string; locale: string };

/** An e-mail ready to send (job kind `rendered-email`, and what renderEmail returns): text, and HTML beside it. */
export interface RenderedEmail {
  to: string;
  subject: string;
  text: string;
  /** The same mail as HTML (sent as multipart/alternative with the text). */
  html?: string;
  attachments?: EmailAttachment[];
}

/** A file sent with a mail (nodemailer's attachment shape). */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

const templates: ReadonlySet<string> = new Set<EmailTemplate>([
  'appConnected',
  'appScopesAdded',
  'appDisconnected',
  'restaurantWebhookSwitchedOff',
  'appWebhookSwitchedOff',
  'teamInvitation',
  'reservationConfirmed',
  'reservationRequested',
  'passwordReset',
  'emailChangeRequested',
  'emailChanged',
  ...guestMails,
]);

/**
 * The mail in the recipient's language (English for a locale we do not have), plain text ending
 * with a newline; a guest's mail about an order or a cancelled reservation also as HTML. A list of scopes becomes one `- what it allows` line each. A template this code
 * does not know (a job queued by a newer release) is an error, not a mail of raw keys.
 */
export function renderEmail(email: QueuedEmail): RenderedEmail {
  if (!templates.has(email.template)) throw new Error(`no e-mail template ${email.template}`);
  const locale = pickLocale([email.locale]);
  const t = translator(locale, 'email');
  if (guestMails.has(email.template))
    return { to: email.to, ...renderGuestMail(email as GuestMailContent, locale, t) };
  const params: Record<string, unknown> = { ...email.params };
  if ('scopes' in email.params) {
    // Scopes contain ':', i18next's namespace separator: looked up with none.
    params.scopes = email.params.scopes
      .map((scope) => `- ${t(`scopes.${scope}`, { nsSeparator: false })}`)
      .join('\n');
  }
  if (email.template === 'teamInvitation') params.role = t(`teamInvitation.roles.${email.params.role}`);
  let attachments: EmailAttachment[] | undefined;
  if (email.template === 'reservationConfirmed' || email.template === 'reservationRequested') {
    const mail = email.params;
    const start = DateTime.fromISO(mail.starts_at, { zone: mail.timezone }).setLocale(locale);
    params.when = start.toLocaleString(DateTime.DATETIME_MED_WITH_WEEKDAY);
    attachments = [
      {
        filename: 'reservation.ics',
        contentType: 'text/calendar; charset=utf-8; method=PUBLISH',
        content: reservationCalendar({
          reservationId: mail.reservation_id,
          start: new Date(mail.starts_at),
          minutes: mail.duration_minutes,
          stamp: new Date(mail.created_at),
          summary: t('reservationCalendar.summary', { restaurant: mail.restaurant }),
        }),
      },
    ];
  }
  const cancelUrl = 'cancel_url' in email.params ? email.params.cancel_url : undefined;
  const cancelLine = cancelUrl ? `\n${t('reservationCancel', { url: cancelUrl })}\n` : '';
  return {
    to: email.to,
    subject: t(`${email.template}.subject`, params),
    text: `${t(`${email.template}.body`, params)}\n${cancelLine}`,
    ...(attachments && { attachments }),
  };
}
