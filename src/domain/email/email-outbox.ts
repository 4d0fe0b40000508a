import type { Ctx } from '../context.ts';
import { newId } from '../ids.ts';

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
