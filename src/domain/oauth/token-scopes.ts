import { scopes as allScopes, isScope, type Scope } from '../shared/scopes.ts';
import { InvalidScope } from './oauth-errors.ts';

/*
 * The scopes of a new access token (spec: Refresh with rotation):
 * - at most those granted to the family, and only those the connection still has (consenting
 *   again may have removed some);
 * - `scope` (space-separated) narrows them further; an unknown scope or one beyond them →
 *   invalid_scope. It narrows only the access token: the refresh token keeps the family's scopes.
 */
export function accessTokenScopes(
  granted: readonly string[],
  connectionScopes: readonly string[],
  requested: string | undefined,
): Scope[] {
  const allowed = allScopes.filter((scope) => granted.includes(scope) && connectionScopes.includes(scope));
  if (requested === undefined) return allowed;
  const asked = requested.split(' ');
  for (const scope of asked) {
    if (!isScope(scope)) throw new InvalidScope(`Unknown scope "${scope}".`);
    if (!allowed.includes(scope)) throw new InvalidScope(`The scope ${scope} was not granted.`);
  }
  return allowed.filter((scope) => asked.includes(scope));
}
