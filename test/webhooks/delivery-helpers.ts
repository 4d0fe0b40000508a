import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { type WebhookDeliverySettings, webhookDeliverySettings } from '../../src/adapters/webhook-post.ts';
import type { Db } from '../../src/db/client.ts';
import type { Clock } from '../../src/domain/shared/context.ts';
import { setAppWebhook } from '../../src/domain/webhooks/app-webhook.service.ts';
import type { EmailTransport } from '../../src/worker/email-transport.ts';
import { WebhookSender } from '../../src/worker/webhook-sender.ts';
import { jobs } from '../../src/worker/worker.ts';
import type { Tenant, TestApp } from '../harness.ts';
import { hangCatcherMs } from '../waiting.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver on a loopback port. The path says how it answers: `/ok/…` 200, `/fail/…`
 * 500, `/redirect/…` 302 to `/ok/redirected`, `/hang/…` never, `/reset/…` drops the connection,
 * `/huge/…` 200 with an endless body; a path in `down` answers 503
 * (a receiver that is down until the test takes it out). It counts the connections made to it.
 */
export async function startReceiver(): Promise<{
  base: string;
  received: Received[];
  down: Set<string>;
  connections(): number;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const down = new Set<string>();
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (down.has(path)) return res.writeHead(503).end('down');
      if (path.startsWith('/hang/')) return;
      if (path.startsWith('/reset/')) return req.socket.destroy();
      if (path.startsWith('/huge/')) return streamForever(res);
      if (path.startsWith('/fail/')) return res.writeHead(500).end('nope');
      if (path.startsWith('/redirect/')) return res.writeHead(302, { location: '/ok/redirected' }).end();
      res.writeHead(200).end('thanks');
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    down,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** 200, then 1 MiB chunks until the client goes away. */
function streamForever(res: ServerResponse): void {
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  res.writeHead(200, { 'content-type': 'text/plain' });
  const more = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', more);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  more();
}

/** The sender's settings in the tests: no receiver's answer is cut short on a busy machine. */
export const settings: WebhookDeliverySettings = {
  ...webhookDeliverySettings({ baseUrl: 'http://servery.test', webhooksAllowInsecure: true }),
  timeoutMs: hangCatcherMs,
};

const deliveryJob = jobs.find((job) => job.name === 'deliver webhooks');
const noEmail: EmailTransport = {
  send: async () => {
    throw new Error('the webhook job sends no e-mail');
  },
};

/**
 * One run of the worker's webhook job, as the worker starts it (with a shorter time-out or other
 * clients if given), until the outcomes of the sends it started are written.
 */
export async function runJob(
  db: Db,
  clock: Clock,
  overrides: Partial<WebhookDeliverySettings> = {},
): Promise<unknown> {
  if (!deliveryJob) throw new Error('the worker runs no webhook delivery job');
  const log = pino({ level: 'silent' });
  const sender = new WebhookSender(db, clock, { ...settings, ...overrides }, log);
  const started = await deliveryJob.run(db, clock, { log, emailTransport: noEmail, webhooks: sender });
  await sender.idle();
  return started;
}

/** Gives the tenant's app a webhook to `url` with this selection; returns its signing secret. */
export async function webhookFor(
  t: TestApp,
  tenant: Tenant,
  url: string,
  events: string[] = ['order.*', 'menu.*', 'store.*', 'reservation.*'],
): Promise<string> {
  const { secret } = await setAppWebhook(t.ctx, {
    clientId: tenant.clientId,
    developerId: null,
    url,
    events,
    rules: { allowInsecure: true },
  });
  if (!secret) throw new Error('the webhook existed already');
  return secret;
}
