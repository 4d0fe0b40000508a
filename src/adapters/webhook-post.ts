import { eventId } from '../domain/events/positions.ts';
import { type Clock, wallClockTime } from '../domain/shared/context.ts';
import type { ClaimedDelivery, DeliveryPoster, SendResult } from '../domain/webhooks/delivery.ts';
import { signatureHeader, standardWebhooksSignature } from '../domain/webhooks/signature.ts';
import { OutboundHttpClient } from './outbound-http.ts';

/** How webhook deliveries are posted; the worker's sends and the console's resends alike. */
export interface WebhookDeliverySettings extends DeliveryPoster {
  /** The guarded outbound client: public addresses only. */
  http: OutboundHttpClient;
  /**
   * WEBHOOKS_ALLOW_INSECURE: a client that reaches loopback receivers too, for test restaurants'
   * events only, which may then go to http addresses as well; null when the setting is off.
   */
  insecureHttp: OutboundHttpClient | null;
  /** `Service-Webhooks/1.0 (+<documentation address>)`. */
  userAgent: string;
  /** The response time-out: 10 s (spec: Limits); tests shorten it. */
  timeoutMs: number;
}

/** The delivery settings of a deployment: the 10 s time-out, the documentation address in the User-Agent. */
export function webhookDeliverySettings(config: {
  baseUrl: string;
  webhooksAllowInsecure: boolean;
}): WebhookDeliverySettings {
  return {
    http: new OutboundHttpClient(),
    insecureHttp: config.webhooksAllowInsecure ? new OutboundHttpClient({ allowLoopback: true }) : null,
    userAgent: `Service-Webhooks/1.0 (+${config.baseUrl}/v1/openapi.json)`,
    timeoutMs: 10_000,
    // A method on `this`, not a closure: a copy with other clients or another time-out (tests:
    // `{ ...settings, timeoutMs }`) posts with those.
    post(delivery, clock) {
      return postDelivery(delivery, this, clock);
    },
  };
}

/*
 * One send: a success is a 2xx answer within the time-out; a redirect (not followed), any other
 * status, a time-out, a refused or reset connection, or an address that is not allowed (the
 * outbound client checks the address it connects to, so DNS rebinding cannot get past it) are
 * failures. The response body is not read.
 */
export async function postDelivery(
  delivery: ClaimedDelivery,
  settings: WebhookDeliverySettings,
  clock: Clock,
): Promise<SendResult> {
  const startedAt = clock.now();
  const began = performance.now();
  // The receiver checks the signature's time against its own clock (5 minutes with the usual
  // verifiers): a sandbox clock's lead stays out of it.
  const result = await post(delivery, settings, wallClockTime(clock));
  return { startedAt, durationMs: Math.round(performance.now() - began), ...result };
}

async function post(
  delivery: ClaimedDelivery,
  settings: WebhookDeliverySettings,
  now: Date,
): Promise<{ statusCode: number | null; error: string | null }> {
  const url = new URL(delivery.url);
  // Insecure receivers only for test restaurants' events (webhook-address.ts).
  const insecureHttp = delivery.livemode ? null : settings.insecureHttp;
  if (url.protocol !== 'https:' && !(insecureHttp && url.protocol === 'http:'))
    return { statusCode: null, error: 'The webhook address is not https.' };
  // The event's id (the same for every attempt and resend, so receivers drop repeats) and the
  // send's time, as Service-Signature's `t`, for the Standard Webhooks headers.
  const id = eventId(delivery.position, delivery.audience_id);
  const timestamp = Math.floor(now.getTime() / 1000);
  try {
    const response = await (insecureHttp ?? settings.http).fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': settings.userAgent,
        'Service-Signature': signatureHeader(delivery.body, delivery.secrets, now),
        'Service-Event-Id': id,
        'Service-Event-Type': delivery.event_type,
        'Service-Delivery-Attempt': String(delivery.sends),
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': standardWebhooksSignature(id, timestamp, delivery.body, delivery.secrets),
      },
      body: delivery.body,
    });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return { statusCode: response.status, error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      return { statusCode: null, error: `No answer within ${settings.timeoutMs} ms.` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { statusCode: null, error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}
