import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  /** The same mail as HTML: sent beside the text as multipart/alternative. */
  html?: string;
  /** Files sent with the mail (a reservation's calendar file), passed to nodemailer as they are. */
  attachments?: { filename: string; contentType: string; content: string }[];
}

/** Where the worker hands e-mails over: a promise that settles once the mail is accepted or refused. */
export interface EmailTransport {
  send(email: OutgoingEmail): Promise<void>;
}

/*
 * The SMTP server of SMTP_URL, from MAIL_FROM; a connection per mail. The timeouts are well
 * below the job queue's lease (10 minutes), so a slow server cannot make a second worker take a
 * mail that is still being sent.
 * Without SMTP_URL (development, demos) each mail is logged, recipient and subject only, and counts
 * as sent.
 */
export function emailTransport(config: Pick<Config, 'smtpUrl' | 'mailFrom'>, log: Logger): EmailTransport {
  const { smtpUrl } = config;
  if (!smtpUrl) {
    return {
      send: async (email) => {
        log.info({ to: email.to, subject: email.subject }, 'e-mail not sent (no SMTP_URL), logged only');
      },
    };
  }
  const transporter = nodemailer.createTransport(
    { url: smtpUrl, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 },
    { from: config.mailFrom },
  );
  return {
    send: async (email) => {
      await transporter.sendMail(email);
    },
  };
}
