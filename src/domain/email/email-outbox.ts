import type { Ctx } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

export interface NewEmail {
  /** The restaurant the mail is about, if any. */
  tenantId: string | null;
  to: string;
  subject: string;
  text: string;
}

/** Queues an e-mail in the caller's transaction; the worker sends it once that commits. */
export async function queueEmail(ctx: Ctx, email: NewEmail): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('email_outbox')
    .values({
      id: newId(),
      tenant_id: email.tenantId,
      to_address: email.to,
      subject: email.subject,
      body: email.text,
      created_at: now,
      send_after: now,
    })
    .execute();
}

/** Queues the same e-mail to every owner of the restaurant. */
export async function emailOwners(
  ctx: Ctx,
  tenantId: string,
  subject: string,
  lines: string[],
): Promise<void> {
  const owners = await ctx.db
    .selectFrom('restaurant_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select('a.email')
    .where('m.tenant_id', '=', tenantId)
    .where('m.role', '=', 'owner')
    .execute();
  for (const owner of owners) {
    await queueEmail(ctx, { tenantId, to: owner.email, subject, text: `${lines.join('\n')}\n` });
  }
}
