import { OAuthError } from '../../domain/oauth/oauth-errors.ts';

/*
 * The errors of the authorization request that go back to the app on its redirect URI (spec:
 * Authentication, "error on redirect"), besides InvalidRequest, InvalidScope and ServerError of
 * oauth-errors.ts. Their HTTP status only shows when no redirect is allowed (the error page).
 */

/** The owner pressed Cancel, or may not connect this app to the chosen restaurant. */
export class AccessDenied extends OAuthError {
  constructor(description: string) {
    super('access_denied', 403, description);
  }
}

/** `response_type` is not `code`. */
export class UnsupportedResponseType extends OAuthError {
  constructor(description: string) {
    super('unsupported_response_type', 400, description);
  }
}

/**
 * A request that must not be answered at its redirect URI (unknown client, unregistered
 * redirect URI, a repeated parameter, a rejected or suspended app): an error page instead.
 */
export class NoRedirect extends Error {
  override name = 'NoRedirect';
}
