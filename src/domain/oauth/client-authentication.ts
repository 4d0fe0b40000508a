import type { AppStatus, AppType } from '../apps/apps.service.ts';
import type { Ctx } from '../context.ts';
import { sha256 } from '../ids.ts';
import type { ClientCredentials } from './client-credentials.ts';
import { InvalidClient, UnauthorizedClient } from './oauth-errors.ts';

/** The app a request authenticated as. */
export interface Client {
  appId: string;
  clientId: string;
  type: AppType;
  status: AppStatus;
}

/*
 * Verifies the client's credentials (spec: Clients):
 * - the client id names an app → else invalid_client;
 * - a confidential app sends one of its secrets that has not expired (a replaced secret keeps
 *   working until its expires_at, so two overlap) → else invalid_client;
 * - a public app sends no secret (method none) → else invalid_client.
 */
export async function authenticateClient(ctx: Ctx, credentials: ClientCredentials): Promise<Client> {
  const app = await ctx.db
    .selectFrom('apps')
    .select(['id', 'client_id', 'type', 'status'])
    .where('client_id', '=', credentials.clientId)
    .executeTakeFirst();
  if (!app) throw new InvalidClient('Unknown client.');
  const client: Client = { appId: app.id, clientId: app.client_id, type: app.type, status: app.status };
  if (app.type === 'public') {
    if (credentials.clientSecret !== null) throw new InvalidClient('A public client sends no client secret.');
    return client;
  }
  if (credentials.clientSecret === null)
    throw new InvalidClient('A confidential client must send its secret.');
  const secret = await ctx.db
    .selectFrom('app_secrets')
    .select('id')
    .where('app_id', '=', app.id)
    .where('secret_hash', '=', sha256(credentials.clientSecret))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', ctx.clock.now())]))
    .executeTakeFirst();
  if (!secret) throw new InvalidClient('The client secret is wrong or expired.');
  return client;
}

/*
 * - a suspended app → unauthorized_client, before anything else happens: its connections and
 *   tokens are kept, and it may retry once reinstated.
 */
export function checkClientNotSuspended(client: Client): void {
  if (client.status === 'suspended')
    throw new UnauthorizedClient('The app is suspended; its connections and tokens are kept. Retry later.');
}
