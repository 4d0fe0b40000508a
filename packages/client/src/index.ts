export {
  createServeryClient,
  dataOf,
  type ErrorCode,
  ServeryApiError,
  type ServeryClient,
  type ServeryClientOptions,
} from './client.ts';
export { type CursorStore, type EventsPollerOptions, FileCursorStore, pollEvents } from './events-poller.ts';
export type { components, operations, paths } from './schema.ts';
export type { EventsPage, EventType, Order, ServeryEvent } from './types.ts';
export {
  type VerifyOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from './webhooks.ts';
