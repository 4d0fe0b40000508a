/**
 * The errors of the token and revocation endpoints, one class per OAuth error code, each with the
 * status of the spec's "Token endpoint errors" table. They render as `{error, error_description}`.
 */
export class OAuthError extends Error {
  readonly code: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: string, status: number, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
    this.status = status;
    this.headers = headers;
  }
}

/** A parameter missing, repeated or invalid; a malformed body; two client authentication methods. */
export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super('invalid_request', 400, description);
  }
}

/** Client authentication failed. */
export class InvalidClient extends OAuthError {
  constructor(description: string) {
    super('invalid_client', 401, description, { 'www-authenticate': 'Basic realm="servery"' });
  }
}

/** Code or refresh token invalid, expired, used or revoked; redirect URI or verifier mismatch; connection gone. */
export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super('invalid_grant', 400, description);
  }
}

/** The app is suspended: its connections and tokens stay, it may retry later. */
export class UnauthorizedClient extends OAuthError {
  constructor(description: string) {
    super('unauthorized_client', 400, description);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string) {
    super('unsupported_grant_type', 400, description);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string) {
    super('invalid_scope', 400, description);
  }
}

/** Too many requests: wait `retryAfterSeconds`. */
export class TemporarilyUnavailable extends OAuthError {
  constructor(description: string, retryAfterSeconds: number) {
    super('temporarily_unavailable', 429, description, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class ServerError extends OAuthError {
  constructor() {
    super('server_error', 500, 'Something went wrong on our side. Retry with growing delays.');
  }
}

// Errors only of the authorization request, sent back on the redirect URI (their status shows
// only on the error page, when no redirect is allowed).

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
