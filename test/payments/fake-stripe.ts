import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StripeSettings } from '../../src/config.ts';

/*
 * The part of Stripe's API that Servery calls, on a local port: `POST /v1/payment_intents` with a
 * form-encoded body, answering a PaymentIntent as Stripe does. An `Idempotency-Key` seen before
 * answers the same PaymentIntent again (with `Idempotent-Replayed: true`), as Stripe does for 24
 * hours. Every request is recorded for the tests to read.
 */

export interface FakeStripeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The form fields as sent, e.g. `metadata[order_id]`. */
  form: Record<string, string>;
}

export interface FakeStripePaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  client_secret: string;
  description: string | null;
  metadata: Record<string, string>;
  status: 'requires_payment_method';
  livemode: false;
}

export interface FakeStripe {
  /** Settings that point a StripePayments at this fake. */
  settings: StripeSettings;
  requests: FakeStripeRequest[];
  intents: Map<string, FakeStripePaymentIntent>;
  close(): Promise<void>;
}

export const fakeWebhookSecret = 'whsec_fake_servery_test';

export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: FakeStripeRequest[] = [];
  const intents = new Map<string, FakeStripePaymentIntent>();
  const byIdempotencyKey = new Map<string, FakeStripePaymentIntent>();

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ method: req.method ?? '', path, headers: req.headers, form });
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${randomBytes(7).toString('hex')}`,
        ...headers,
      });
      res.end(JSON.stringify(body));
    };

    if (req.method !== 'POST' || path !== '/v1/payment_intents')
      return answer(404, {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${req.method}: ${path})`,
        },
      });
    if (req.headers.authorization !== 'Bearer sk_test_fake')
      return answer(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    const key = req.headers['idempotency-key'];
    const replayed = typeof key === 'string' ? byIdempotencyKey.get(key) : undefined;
    if (replayed) return answer(200, replayed, { 'idempotent-replayed': 'true' });

    const id = `pi_${randomBytes(12).toString('hex')}`;
    const metadata: Record<string, string> = {};
    for (const [field, value] of Object.entries(form)) {
      const name = /^metadata\[(.+)\]$/.exec(field)?.[1];
      if (name) metadata[name] = value;
    }
    const intent: FakeStripePaymentIntent = {
      id,
      object: 'payment_intent',
      amount: Number(form.amount),
      currency: form.currency ?? '',
      client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
      description: form.description ?? null,
      metadata,
      status: 'requires_payment_method',
      livemode: false,
    };
    intents.set(id, intent);
    if (typeof key === 'string') byIdempotencyKey.set(key, intent);
    return answer(200, intent);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    settings: {
      secretKey: 'sk_test_fake',
      publishableKey: 'pk_test_fake',
      webhookSecret: fakeWebhookSecret,
      api: { host: '127.0.0.1', port, protocol: 'http' },
    },
    requests,
    intents,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
