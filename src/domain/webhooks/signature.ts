import { createHmac } from 'node:crypto';

/*
 * The Service-Signature header (decisions.md, Events; the Stripe scheme, so existing verifiers
 * work): `t=<unix seconds of the send>,v1=<hex HMAC-SHA256 over "<t>.<raw body>">`, keyed with the
 * whole `whsec_` secret; one v1 per secret still signing, newest first (after a rotation both the
 * old and the new secret verify for 24 hours).
 */
export function signatureHeader(body: string, secretsNewestFirst: readonly string[], sentAt: Date): string {
  const t = Math.floor(sentAt.getTime() / 1000);
  const signatures = secretsNewestFirst.map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`,
  );
  return [`t=${t}`, ...signatures].join(',');
}

/*
 * The Standard Webhooks headers (standardwebhooks.com), sent beside Service-Signature so the
 * `standardwebhooks` libraries verify our deliveries. Their key is the 32 random bytes of the
 * secret (base64url after `whsec_`); the libraries read a `whsec_` secret as standard base64,
 * which ours is not, so receivers are given the same bytes in that form
 * (`standard_webhooks_secret`).
 */

/** The signing secret as the Standard Webhooks libraries take it: `whsec_` + standard base64 of its bytes. */
export function standardWebhooksSecret(secret: string): string {
  return `whsec_${standardWebhooksKey(secret).toString('base64')}`;
}

function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64url');
}

/**
 * `webhook-signature`: `v1,<base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>">`
 * per secret still signing, newest first, space-separated (a rotation's old and new secret both
 * verify).
 */
export function standardWebhooksSignature(
  webhookId: string,
  timestamp: number,
  body: string,
  secretsNewestFirst: readonly string[],
): string {
  return secretsNewestFirst
    .map(
      (secret) =>
        `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`,
    )
    .join(' ');
}
