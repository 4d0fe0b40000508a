/** The closed list of the public API's error codes and the HTTP status of each (spec: Errors). */
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  account_inactive: 403,
  insufficient_scope: 403,
  plan_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  external_id_taken: 409,
  idempotency_in_progress: 409,
  invalid_transition: 409,
  slot_unavailable: 409,
  stage_not_used: 409,
  payload_too_large: 413,
  idempotency_key_reused: 422,
  limit_exceeded: 422,
  rate_limited: 429,
  server_error: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** An error the API answers with its code; `headers` go onto the response (WWW-Authenticate, Retry-After). */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { param?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.param = options.param;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/**
 * Mistakes an operator makes on the command line or in settings: shown as they are, exit non-zero.
 * `param` names the input at fault where a form shows the error beside its field (the console's app
 * forms; the console's JSON API answers it as 400 `invalid_request` with that `param`).
 */
export class InputError extends Error {
  override name = 'InputError';
  readonly param: string | undefined;
  /** Every problem of the input, this one first: a page's form shows them all, an API answer names one. */
  readonly all: readonly InputError[];

  constructor(message: string, options: { param?: string; all?: readonly InputError[] } = {}) {
    super(message);
    this.param = options.param;
    this.all = options.all ?? [this];
  }
}
