import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServeryEvent } from './types.ts';

export type WebhookVerificationFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'invalid_body';

/** A delivery that is not Servery's, not for this secret, or too old to accept: answer it with a 4xx. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface VerifyOptions {
  /** How far the signature's time may be from `now`, either way: 300 s unless told. */
  toleranceSeconds?: number;
  /** The receiver's clock; the current time unless told. */
  now?: Date;
}

/** Request headers as Node's http module (`req.headers`) or the Fetch API (`request.headers`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/*
 * Verifies a delivery's Service-Signature (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`) and returns the
 * event it carries:
 * - `v1` is the lowercase hex HMAC-SHA256 over `<t>.<raw body>`, keyed with the whole `whsec_`
 *   secret; the body must be the bytes as received, before any JSON parsing;
 * - after a secret's rotation the header carries one `v1` per secret still signing, and the
 *   receiver may hold several secrets too: any secret matching any `v1` verifies;
 * - `t` more than `toleranceSeconds` away from `now` is refused, so a captured delivery cannot be
 *   replayed later (every attempt and resend is signed afresh);
 * - signatures are compared in constant time.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): ServeryEvent {
  const header = headerValue(headers, 'service-signature');
  if (!header) throw new WebhookVerificationError('missing_header', 'No Service-Signature header.');
  const { t, signatures } = parseSignatureHeader(header);
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - t) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The signature's time is ${nowSeconds - t} s away from now (at most ${toleranceSeconds} s).`,
    );
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signedPayload = Buffer.concat([Buffer.from(`${t}.`, 'utf8'), body]);
  const matches = (typeof secrets === 'string' ? [secrets] : secrets).some((secret) => {
    const expected = createHmac('sha256', secret).update(signedPayload).digest();
    return signatures.some((signature) => timingSafeEqual(signature, expected));
  });
  if (!matches) {
    throw new WebhookVerificationError('no_matching_signature', 'No signature matches the secrets given.');
  }
  try {
    return JSON.parse(body.toString('utf8')) as ServeryEvent;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The signed body is not JSON.');
  }
}

function headerValue(headers: WebhookHeaders, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** `t` and the `v1` signatures as 32-byte buffers; other schemes' entries are ignored. */
function parseSignatureHeader(header: string): { t: number; signatures: Buffer[] } {
  let t: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^\d+$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (t === null || signatures.length === 0) {
    throw new WebhookVerificationError('malformed_header', 'Service-Signature has no t or no v1 signature.');
  }
  return { t, signatures };
}
