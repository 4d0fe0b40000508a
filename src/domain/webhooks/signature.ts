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
