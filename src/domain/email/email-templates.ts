import { DateTime } from 'luxon';
import { pickLocale, translator } from '../../i18n/i18n.ts';
import { reservationCalendar } from '../reservations/reservation-calendar.ts';
import type { Scope } from '../shared/scopes.ts';

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
  /** To a guest: the restaurant confirmed the reservation (with a calendar file). */
  reservationConfirmed: ReservationMail;
  /** To a guest: the reservation request awaits the restaurant (with a calendar file). */
  reservationRequested: ReservationMail;
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

/** A queued e-mail (job kind `email`). */
export type QueuedEmail = EmailContent & { to: string; locale: string };

/** A plain-text e-mail ready to send (job kind `rendered-email`, and what renderEmail returns). */
export interface RenderedEmail {
  to: string;
  subject: string;
  text: string;
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
  'reservationConfirmed',
  'reservationRequested',
]);

/**
 * The mail in the recipient's language (English for a locale we do not have), plain text ending
 * with a newline. A list of scopes becomes one `- what it allows` line each. A template this code
 * does not know (a job queued by a newer release) is an error, not a mail of raw keys.
 */
export function renderEmail(email: QueuedEmail): RenderedEmail {
  if (!templates.has(email.template)) throw new Error(`no e-mail template ${email.template}`);
  const locale = pickLocale([email.locale]);
  const t = translator(locale, 'email');
  const params: Record<string, unknown> = { ...email.params };
  if ('scopes' in email.params) {
    // Scopes contain ':', i18next's namespace separator: looked up with none.
    params.scopes = email.params.scopes
      .map((scope) => `- ${t(`scopes.${scope}`, { nsSeparator: false })}`)
      .join('\n');
  }
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
