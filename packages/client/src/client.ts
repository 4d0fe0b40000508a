import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

/** The API's typed client: openapi-fetch over the generated paths; every non-2xx answer throws ServeryApiError. */
export type ServeryClient = Client<paths>;

export type ErrorCode = components['schemas']['Error']['error']['code'];

export interface ServeryClientOptions {
  /** The installation's API root, e.g. `https://api.example.com/v1` (the `servers` entry of its openapi.json). */
  baseUrl: string;
  /**
   * The connection's access token, or a function giving the current one before each request (access
   * tokens last an hour: a long-running app refreshes them there).
   */
  token: string | (() => string | Promise<string>);
  /** Another fetch (a proxy agent, tests); defaults to the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * An error answer of the API (spec: Errors): `code` is the stable contract, `message` an English
 * hint that may change, `param` the field at fault. `code` and `message` come from a body that is
 * not the API's (a proxy's 502) as null and the status text.
 */
export class ServeryApiError extends Error {
  override readonly name = 'ServeryApiError';
  readonly status: number;
  readonly code: ErrorCode | null;
  readonly param: string | null;
  /** `req_...`: quote it when asking for help. */
  readonly requestId: string | null;
  /** Seconds to wait before sending again (429, 409 `conflict`); null when the answer names none. */
  readonly retryAfter: number | null;

  constructor(
    status: number,
    body: Partial<components['schemas']['Error']['error']> | null,
    headers: Headers,
    statusText = '',
  ) {
    super(body?.message ?? `HTTP ${status} ${statusText}`.trim());
    this.status = status;
    this.code = body?.code ?? null;
    this.param = body?.param ?? null;
    this.requestId = body?.request_id ?? headers.get('x-request-id');
    const retryAfter = Number.parseInt(headers.get('retry-after') ?? '', 10);
    this.retryAfter = Number.isNaN(retryAfter) ? null : retryAfter;
  }

  /** The error of a non-2xx answer, from its body when it is the API's error shape. */
  static async from(response: Response): Promise<ServeryApiError> {
    let body: { error?: Partial<components['schemas']['Error']['error']> } | null = null;
    try {
      body = await response.clone().json();
    } catch {
      // Not JSON: an answer from something in front of the API.
    }
    const error = typeof body?.error === 'object' && body.error !== null ? body.error : null;
    return new ServeryApiError(response.status, error, response.headers, response.statusText);
  }
}

/**
 * A client for one connection. Paths, parameters, bodies and answers are typed from the served
 * OpenAPI document; writes take `params: { header: { 'Idempotency-Key': key } }` (send the same key
 * again when retrying, spec: Retry guidance).
 */
export function createServeryClient(options: ServeryClientOptions): ServeryClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.fetch && { fetch: options.fetch }),
  });
  const { token } = options;
  client.use({
    async onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${typeof token === 'string' ? token : await token()}`);
      return request;
    },
    async onResponse({ response }) {
      if (!response.ok) throw await ServeryApiError.from(response);
    },
  });
  return client;
}

/**
 * The data of a call. Failed calls throw (see createServeryClient), so it is always there; this
 * only tells the type checker so: `const me = await dataOf(servery.GET('/me'))`.
 */
export async function dataOf<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined) throw await ServeryApiError.from(response);
  return data;
}
