import { sql } from 'kysely';
import type { Db } from '../../src/db/client.ts';
import { type QueuedEmail, renderEmail } from '../../src/domain/email/email-templates.ts';

export interface QueuedMail {
  id: string;
  tenant_id: string | null;
  to: string;
  locale: string;
  subject: string;
  body: string;
}

/**
 * The e-mails queued (jobs of kind `email`) for a restaurant or to an address, oldest first,
 * rendered as the worker sends them.
 */
export async function queuedEmails(db: Db, of: { tenantId?: string; to?: string }): Promise<QueuedMail[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'tenant_id', 'payload'])
    .where('kind', '=', 'email')
    .$if(of.tenantId !== undefined, (query) => query.where('tenant_id', '=', of.tenantId ?? null))
    .$if(of.to !== undefined, (query) => query.where(sql<string>`payload->>'to'`, '=', of.to ?? ''))
    .orderBy('id')
    .execute();
  return rows.map((row) => {
    const email = row.payload as QueuedEmail;
    const { subject, text } = renderEmail(email);
    return { id: row.id, tenant_id: row.tenant_id, to: email.to, locale: email.locale, subject, body: text };
  });
}
