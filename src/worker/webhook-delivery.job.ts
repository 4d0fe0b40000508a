import type { Db } from '../db/client.ts';
import { stampAllEventPositions } from '../domain/events/positions.ts';
import type { Clock } from '../domain/shared/context.ts';
import { fanOutDeliveries } from '../domain/webhooks/delivery-fanout.ts';
import type { WebhookSender } from './webhook-sender.ts';

/** One run: stamp what committed, create its deliveries, start sending what is due. */
export async function runWebhookDelivery(db: Db, clock: Clock, sender: WebhookSender): Promise<number> {
  await stampAllEventPositions(db);
  await fanOutDeliveries(db, clock);
  return sender.deliverDue();
}
