import type { Db } from '../db/client.ts';
import type { Clock } from '../domain/context.ts';
import { stampEventPositions } from '../domain/events/positions.ts';
import type { WebhookDeliverySettings, WebhookSender } from '../domain/webhooks/delivery.ts';
import { fanOutDeliveries } from '../domain/webhooks/delivery-fanout.ts';

/** The delivery settings of a deployment: the 10 s time-out, the documentation address in the User-Agent. */
export function webhookDeliverySettings(config: {
  baseUrl: string;
  webhooksAllowInsecure: boolean;
}): WebhookDeliverySettings {
  return {
    allowInsecure: config.webhooksAllowInsecure,
    userAgent: `Service-Webhooks/1.0 (+${config.baseUrl}/v1/openapi.json)`,
    timeoutMs: 10_000,
  };
}

/** One run: stamp what committed, create its deliveries, start sending what is due. */
export async function runWebhookDelivery(db: Db, clock: Clock, sender: WebhookSender): Promise<number> {
  await stampEventPositions(db);
  await fanOutDeliveries(db, clock);
  return sender.deliverDue();
}
