import type { Ctx } from '../shared/context.ts';
import type { AppStatus } from './apps.service.ts';

export interface DeveloperApp {
  id: string;
  name: string;
  clientId: string;
  status: AppStatus;
}

/** A developer's apps, by name (the console's home). */
export async function appsOfDeveloper(ctx: Ctx, developerId: string): Promise<DeveloperApp[]> {
  const rows = await ctx.db
    .selectFrom('apps')
    .select(['id', 'name', 'client_id', 'status'])
    .where('developer_id', '=', developerId)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, clientId: row.client_id, status: row.status }));
}
