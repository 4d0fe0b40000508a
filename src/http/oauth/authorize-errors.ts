/**
 * A request that must not be answered at its redirect URI (unknown client, unregistered
 * redirect URI, a repeated parameter, a rejected or suspended app): an error page instead.
 */
export class NoRedirect extends Error {
  override name = 'NoRedirect';
}
