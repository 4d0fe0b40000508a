import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { Ctx } from '../context.ts';
import { emailOwners, queueEmail } from '../email/email-outbox.ts';

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
 * Counts the outcomes of attempts in a webhook's streak (in the caller's transaction): a success
 * ends the streak, a failure lengthens it. A webhook whose streak reached 10 failures spanning
 * 24 hours is switched off: its open deliveries are skipped and its developer (the app's webhook)
 * or the restaurant's owners (its own) are e-mailed. Returns the ids of webhooks switched off.
 */
export async function countOutcomes(
  ctx: Ctx,
  outcomes: ReadonlyArray<{ webhookId: string; ok: boolean; at: Date }>,
): Promise<string[]> {
  const succeeded = [...new Set(outcomes.filter((o) => o.ok).map((o) => o.webhookId))];
  if (succeeded.length > 0) {
    await ctx.db
      .updateTable('webhooks')
      .set({ failures_in_row: 0, failing_since: null })
      .where('id', '=', sql<string>`any(${succeeded}::uuid[])`)
      .where('failures_in_row', '>', 0)
      .execute();
  }
  const failures = new Map<string, { count: number; first: Date }>();
  for (const o of outcomes) {
    if (o.ok) continue;
    const seen = failures.get(o.webhookId);
    failures.set(o.webhookId, {
      count: (seen?.count ?? 0) + 1,
      first: seen && seen.first < o.at ? seen.first : o.at,
    });
  }
  const switchedOff: string[] = [];
  for (const [webhookId, { count, first }] of failures) {
    const streak = await ctx.db
      .updateTable('webhooks')
      .set((eb) => ({
        failures_in_row: eb('failures_in_row', '+', count),
        failing_since: eb.fn.coalesce('failing_since', eb.val(first)),
      }))
      .where('id', '=', webhookId)
      .returning(['enabled', 'failures_in_row', 'failing_since'])
      .executeTakeFirst();
    const now = ctx.clock.now();
    if (
      streak?.enabled &&
      streak.failing_since !== null &&
      streak.failures_in_row >= failuresToSwitchOff &&
      now.getTime() - streak.failing_since.getTime() >= failingForMs
    ) {
      await switchOff(ctx, webhookId, streak.failures_in_row, streak.failing_since);
      switchedOff.push(webhookId);
    }
  }
  return switchedOff;
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
  const lines = [
    `The webhook ${webhook.url} was switched off: ${reason}`,
    'Deliveries still open were skipped. Events stay available for 30 days through GET /v1/events,',
    'and skipped deliveries can be resent from the delivery log once the webhook is switched on again.',
  ];
  if (webhook.tenant_id !== null) {
    await emailOwners(ctx, webhook.tenant_id, 'A webhook of your restaurant was switched off', [
      ...lines.slice(0, 1),
      'Switch it on again in the dashboard once the receiving address works.',
    ]);
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
    subject: `The webhook of ${developer.name} was switched off`,
    text: `${[...lines, 'Switch it on again in the developer console once the receiver works.'].join('\n')}\n`,
  });
}
