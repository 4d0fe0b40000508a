import { sql } from 'kysely';
import type { AppStatus, AppType } from '../apps/apps.service.ts';
import type { Ctx } from '../shared/context.ts';
import { sha256 } from '../shared/ids.ts';
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
  // The app and whether the secret sent is one of its live ones, in one round trip.
  const secretHash = credentials.clientSecret === null ? null : sha256(credentials.clientSecret);
  const { rows } = await sql<{
    id: string;
    client_id: string;
    type: AppType;
    status: AppStatus;
    secret_valid: boolean;
  }>`
    SELECT a.id, a.client_id, a.type, a.status,
      EXISTS (SELECT 1 FROM app_secrets s WHERE s.app_id = a.id AND s.secret_hash = ${secretHash}::text
        AND (s.expires_at IS NULL OR s.expires_at > ${ctx.clock.now()})) AS secret_valid
    FROM apps a WHERE a.client_id = ${credentials.clientId}`.execute(ctx.db);
  const app = rows[0];
  if (!app) throw new InvalidClient('Unknown client.');
  const client: Client = { appId: app.id, clientId: app.client_id, type: app.type, status: app.status };
  if (app.type === 'public') {
    if (credentials.clientSecret !== null) throw new InvalidClient('A public client sends no client secret.');
    return client;
  }
  if (credentials.clientSecret === null)
    throw new InvalidClient('A confidential client must send its secret.');
  if (!app.secret_valid) throw new InvalidClient('The client secret is wrong or expired.');
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
