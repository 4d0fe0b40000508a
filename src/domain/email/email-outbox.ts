import { type Locale, pickLocale } from '../../i18n/i18n.ts';
import { enqueueJob } from '../jobs/jobs.ts';
import type { Ctx } from '../shared/context.ts';
import type { EmailContent } from './email-templates.ts';

export type NewEmail = EmailContent & {
  /** The restaurant the mail is about, if any. */
  tenantId: string | null;
  to: string;
  locale: Locale;
};

/**
 * The language of the e-mails to an account. Accounts have no language of their own yet, so this
 * is English; once they have (a `locale` column), selecting it is all a caller has to add.
 */
export function recipientLocale(account: { email: string; locale?: string | null }): Locale {
  return pickLocale([account.locale]);
}

/**
 * Queues an e-mail (template, parameters, locale) in the caller's transaction: a worker renders
 * and sends it once that commits (job kind `email`).
 */
export async function queueEmail(ctx: Ctx, email: NewEmail): Promise<void> {
  const { tenantId, ...payload } = email;
  await enqueueJob(ctx, 'email', payload, { tenantId });
}

/** Queues the e-mail to every owner of the restaurant, each in their own language. */
export async function emailOwners(ctx: Ctx, tenantId: string, content: EmailContent): Promise<void> {
  const owners = await ctx.db
    .selectFrom('restaurant_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select('a.email')
    .where('m.tenant_id', '=', tenantId)
    .where('m.role', '=', 'owner')
    .execute();
  for (const owner of owners) {
    await queueEmail(ctx, { ...content, tenantId, to: owner.email, locale: recipientLocale(owner) });
  }
}
