import assert from 'node:assert/strict';
import type { SentMail } from '../worker/smtp-receiver.ts';

/** The path and query of the link in a mail that opens `path` (e.g. `/dashboard/reset-password`). */
export function linkIn(mail: SentMail | undefined, path: string): string {
  assert.ok(mail, 'a mail was sent');
  const url = new RegExp(`https?://[^\\s]+${path}\\?token=[A-Za-z0-9_%-]+`).exec(mail.text)?.[0];
  assert.ok(url, `no link to ${path} in: ${mail.text}`);
  const link = new URL(url);
  return `${link.pathname}${link.search}`;
}
