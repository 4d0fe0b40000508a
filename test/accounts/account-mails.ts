import assert from 'node:assert/strict';
import pino from 'pino';
import { jobs } from '../../src/worker/worker.ts';
import type { TestApp } from '../harness.ts';
import { mimeParts, type SmtpReceiver } from '../worker/smtp-receiver.ts';

/** A mail the worker sent to an account: its recipient, subject and text (decoded). */
export interface AccountMail {
  to: string;
  subject: string;
  text: string;
}

const queueJob = jobs.find((job) => job.name === 'run queued jobs');
const log = pino({ level: 'silent' });

/** Runs the worker's queue once: the mails it sent to the local SMTP receiver now. */
export async function sendQueued(t: TestApp, smtp: SmtpReceiver): Promise<AccountMail[]> {
  smtp.received.length = 0;
  assert.ok(queueJob);
  await queueJob.run(t.database.db, t.clock, { log, emailTransport: smtp.transport });
  return smtp.received.map((raw) => ({
    to: /^To: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
    subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
    text: mimeParts(raw).at(-1)?.content ?? '',
  }));
}

/** The path and query of the link in a mail that opens `path` (e.g. `/dashboard/reset-password`). */
export function linkIn(mail: AccountMail | undefined, path: string): string {
  assert.ok(mail, 'a mail was sent');
  const url = new RegExp(`https?://[^\\s]+${path}\\?token=[A-Za-z0-9_%-]+`).exec(mail.text)?.[0];
  assert.ok(url, `no link to ${path} in: ${mail.text}`);
  const link = new URL(url);
  return `${link.pathname}${link.search}`;
}
