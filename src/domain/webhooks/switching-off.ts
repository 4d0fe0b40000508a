import type { Db } from '../../db/client.ts';
import { emailOwners, queueEmail, recipientLocale } from '../email/email-outbox.ts';
import type { Ctx } from '../shared/context.ts';

/** spec: Webhooks: at least 10 failed attempts in a row and nothing succeeding for 24 hours. */
const failuresToSwitchOff = 10;
const failingForMs = 24 * 60 * 60 * 1000;

/** A webhook switched (back) on: no longer disabled, its failures counted afresh. */
export const switchedOn = {
  enabled: true,
  disabled_at: null,
  disabled_reason: null,
  failures_in_row: 0,
  failing_since: null,
} as const;

/** The open deliveries of a webhook switched off are skipped (they can be resent from the log). */
export async function skipOpenDeliveries(db: Db, webhookId: string, now: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: null, skipped_at: now })
    .where('webhook_id', '=', webhookId)
    .where('next_attempt_at', 'is not', null)
    .execute();
}

/**
 * Counts the outcomes of sends in each webhook's streak (in the caller's transaction), in the
 * order they started: a success ends the streak, a failure lengthens it. A webhook whose streak
 * reached 10 failures spanning 24 hours is switched off: its open deliveries are skipped and its
 * developer (the app's webhook) or the restaurant's owners (its own) are e-mailed. Webhooks are
 * written in the order of their ids, so that writers of several restaurants at once (an app's
 * webhook serves each) wait for each other and never deadlock.
 */
export async function countOutcomes(
  ctx: Ctx,
  outcomes: ReadonlyArray<{ webhookId: string; ok: boolean; at: Date }>,
): Promise<void> {
  const byWebhook = new Map<string, Array<{ ok: boolean; at: Date }>>();
  for (const { webhookId, ...outcome } of outcomes) {
    const list = byWebhook.get(webhookId);
    if (list) list.push(outcome);
    else byWebhook.set(webhookId, [outcome]);
  }
  for (const [webhookId, list] of [...byWebhook].sort(([a], [b]) => a.localeCompare(b))) {
    list.sort((a, b) => a.at.getTime() - b.at.getTime());
    const lastSuccess = list.findLastIndex((o) => o.ok);
    const failures = list.slice(lastSuccess + 1);
    const firstFailure = failures[0]?.at ?? null;
    if (lastSuccess >= 0) {
      const restart = ctx.db
        .updateTable('webhooks')
        .set({ failures_in_row: failures.length, failing_since: firstFailure })
        .where('id', '=', webhookId);
      // The common case, all went well: no write (no row lock) unless a streak was running.
      await (failures.length > 0 ? restart : restart.where('failures_in_row', '>', 0)).execute();
    } else {
      await ctx.db
        .updateTable('webhooks')
        .set((eb) => ({
          failures_in_row: eb('failures_in_row', '+', failures.length),
          failing_since: eb.fn.coalesce('failing_since', eb.val(firstFailure)),
        }))
        .where('id', '=', webhookId)
        .execute();
    }
    if (failures.length > 0) await switchOffIfFailing(ctx, webhookId);
  }
}

async function switchOffIfFailing(ctx: Ctx, webhookId: string): Promise<void> {
  const streak = await ctx.db
    .selectFrom('webhooks')
    .select(['enabled', 'failures_in_row', 'failing_since'])
    .where('id', '=', webhookId)
    .executeTakeFirst();
  const now = ctx.clock.now();
  if (
    streak?.enabled &&
    streak.failing_since !== null &&
    streak.failures_in_row >= failuresToSwitchOff &&
    now.getTime() - streak.failing_since.getTime() >= failingForMs
  )
    await switchOff(ctx, webhookId, streak.failures_in_row, streak.failing_since);
}

async function switchOff(ctx: Ctx, webhookId: string, failures: number, since: Date): Promise<void> {
  const now = ctx.clock.now();
  const reason = `${failures} deliveries in a row failed, none succeeded since ${since.toISOString()}.`;
  const webhook = await ctx.db
    .updateTable('webhooks')
    .set({ enabled: false, disabled_at: now, disabled_reason: reason, updated_at: now })
    .where('id', '=', webhookId)
    .returning(['app_id', 'tenant_id', 'url'])
    .executeTakeFirstOrThrow();
  await skipOpenDeliveries(ctx.db, webhookId, now);
  const switchedOff = { url: webhook.url, failures, since: since.toISOString() };
  if (webhook.tenant_id !== null) {
    await emailOwners(ctx, webhook.tenant_id, {
      template: 'restaurantWebhookSwitchedOff',
      params: switchedOff,
    });
    return;
  }
  const developer = await ctx.db
    .selectFrom('apps as p')
    .innerJoin('accounts as a', 'a.id', 'p.developer_id')
    .select(['a.email', 'p.name'])
    .where('p.id', '=', webhook.app_id as string)
    .executeTakeFirstOrThrow();
  await queueEmail(ctx, {
    tenantId: null,
    to: developer.email,
    locale: recipientLocale(developer),
    template: 'appWebhookSwitchedOff',
    params: { app: developer.name, ...switchedOff },
  });
}
