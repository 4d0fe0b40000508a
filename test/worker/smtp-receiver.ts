import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { type EmailTransport, emailTransport } from '../../src/worker/email-transport.ts';
import { jobs } from '../../src/worker/worker.ts';
import type { TestApp } from '../harness.ts';

/*
 * The outside world's mail server for the tests of the mails the worker sends: a real SMTP server
 * on a local port (smtp-server, no TLS) that keeps every message it receives, raw, and the
 * service's own transport pointed at it.
 */
export interface SmtpReceiver {
  /** Every message received so far, as sent (headers and MIME body). */
  readonly received: string[];
  /** The service's transport to this server, as the worker makes it from SMTP_URL. */
  readonly transport: EmailTransport;
  close(): Promise<void>;
}

export async function smtpReceiver(): Promise<SmtpReceiver> {
  const received: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const transport = emailTransport(
    { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Servery <no-reply@servery.test>' },
    pino({ level: 'silent' }),
  );
  return { received, transport, close: () => new Promise<void>((resolve) => server.close(resolve)) };
}

/** A message's MIME parts: each one's content type and its content, decoded (base64 or quoted-printable). */
export function mimeParts(raw: string): { type: string; content: string }[] {
  return raw.split(/\r\n--[^\r\n]+\r\n/).map((part) => {
    const end = part.indexOf('\r\n\r\n');
    const head = part.slice(0, end).toLowerCase();
    const body = part.slice(end + 4);
    const type = /content-type: ([^;\r\n]+)/.exec(head)?.[1] ?? '';
    if (head.includes('content-transfer-encoding: base64'))
      return { type, content: Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') };
    if (head.includes('content-transfer-encoding: quoted-printable'))
      return {
        type,
        content: Buffer.from(
          body
            .replace(/=\r\n/g, '')
            .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
      };
    return { type, content: body };
  });
}

/** A mail as a person reads it: its recipient, subject and plain text. */
export interface SentMail {
  to: string;
  subject: string;
  text: string;
}

const queueJob = jobs.find((job) => job.name === 'run queued jobs');

/** Runs the worker's queue once, as the worker does: the mails it sent to the receiver now. */
export async function sentByQueue(t: TestApp, smtp: SmtpReceiver): Promise<SentMail[]> {
  smtp.received.length = 0;
  assert.ok(queueJob);
  await queueJob.run(t.database.db, t.clock, {
    log: pino({ level: 'silent' }),
    emailTransport: smtp.transport,
  });
  return smtp.received.map((raw) => ({
    to: /^To: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
    subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
    text: mimeParts(raw).find((part) => part.type === 'text/plain')?.content ?? '',
  }));
}
