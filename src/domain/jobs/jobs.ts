import type { QueuedEmail, RenderedEmail } from '../email/email-templates.ts';
import type { Ctx } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

/**
 * The kinds of background job and what each carries (JSON); src/worker/job-kinds.ts runs each.
 * Payment reconciliation is to join them.
 */
export interface JobPayloads {
  /** An e-mail as template, parameters and locale: the worker renders and sends it. */
  email: QueuedEmail;
  /** An e-mail rendered before the queue existed (moved from the e-mail outbox by 0015). */
  'rendered-email': RenderedEmail;
  /** Menu images queued by a write beyond its 25 downloads (domain/menu/menu-images.ts), up to 25. */
  'menu-images': { urls: string[] };
  /** An accepted order's kitchen ticket, for the restaurant's network printer (orders/kitchen-printing.ts). */
  'kitchen-ticket': { order_id: string };
}
export type JobKind = keyof JobPayloads;

export interface JobOptions {
  /** The restaurant the job is about, if any. */
  tenantId?: string | null;
  /** Not before this time (default: at once). */
  runAfter?: Date;
}

/**
 * Queues a job in the caller's transaction (ctx.db): a worker runs it once that commits, and never
 * if it rolls back. Returns its id.
 */
export async function enqueueJob<K extends JobKind>(
  ctx: Ctx,
  kind: K,
  payload: JobPayloads[K],
  options: JobOptions = {},
): Promise<string> {
  const id = newId();
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('jobs')
    .values({
      id,
      kind,
      payload: JSON.stringify(payload),
      tenant_id: options.tenantId ?? null,
      created_at: now,
      run_after: options.runAfter ?? now,
    })
    .execute();
  return id;
}
