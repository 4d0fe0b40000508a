import { accessTokenLifetimeSeconds, issueAccessToken } from '../connections/access-tokens.ts';
import type { Ctx } from '../shared/context.ts';
import type { Scope } from '../shared/scopes.ts';
import type { ActiveConnection } from './connection-check.ts';
import type { OAuthError } from './oauth-errors.ts';
import { issueRefreshToken } from './refresh-tokens.ts';
import type { TokenResponse } from './token-response.schema.ts';

/**
 * Issues a refresh token with the family's scopes and an access token with `accessScopes`, linked
 * to each other and to the family. Returns the new refresh token's id (for rotation) and the body.
 */
export async function issueTokenPair(
  ctx: Ctx,
  input: {
    familyId: string;
    appId: string;
    connection: ActiveConnection;
    refreshScopes: readonly Scope[];
    accessScopes: readonly Scope[];
  },
): Promise<{ refreshTokenId: string; response: TokenResponse }> {
  const { connection } = input;
  const refresh = await issueRefreshToken(ctx, {
    tenantId: connection.tenant.id,
    familyId: input.familyId,
    connectionId: connection.id,
    appId: input.appId,
    scopes: input.refreshScopes,
  });
  const access = await issueAccessToken(ctx, {
    tenantId: connection.tenant.id,
    connectionId: connection.id,
    scopes: input.accessScopes,
    familyId: input.familyId,
    refreshTokenId: refresh.id,
  });
  return {
    refreshTokenId: refresh.id,
    response: {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: accessTokenLifetimeSeconds,
      refresh_token: refresh.token,
      scope: input.accessScopes.join(' '),
      connection_id: connection.id,
      tenant: connection.tenant,
    },
  };
}

/** What a grant ends in: tokens, or a refusal whose effects (a revoked family) are kept. */
export type GrantOutcome = { issued: TokenResponse } | { refused: OAuthError };
