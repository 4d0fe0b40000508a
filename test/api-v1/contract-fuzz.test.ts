import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { errorStatus } from '../../src/domain/shared/errors.ts';
import { createTable } from '../../src/domain/store/tables.service.ts';
import type { ApiRoute } from '../../src/http/api-v1/api-route.ts';
import { apiV1Routes } from '../../src/http/api-v1/routes.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';
import {
  accepts,
  arbitraryOf,
  type BadValue,
  badText,
  badValuesFor,
  type JsonSchema,
  type Path,
  paramOf,
  sitesOf,
  withValueAt,
} from '../json-schema-arbitrary.ts';
import { setGuestLimit } from '../orders/order-helpers.ts';

/*
 * Contract fuzzing of EVERY /v1 operation in the public list (a new one is covered by being
 * listed), against the real service and database:
 * - input generated from the route's own schemas is never answered with a 5xx; an error is in the
 *   spec's shape with a code of the spec at its status; a 400 names one of the operation's fields
 *   (it may refuse what the schema lets pass: a date in the past, hours on a closed day); and some
 *   runs succeed;
 * - that input mutated at every place (wrong types, bounds, unknown and missing fields, NUL, lone
 *   surrogates, impossible dates and timestamps, non-decimal numbers in the query, repeated query
 *   parameters, invalid JSON, invalid UTF-8, other content types, bodies where none belongs, too
 *   large bodies, bad Idempotency-Keys) is a 400 `invalid_request` whose `param` names the place
 *   (`opening_hours[2].open`, the query parameter, the path parameter), or a 413. Each mutation
 *   breaks one thing of a request the operation took (or, failing that, of the last one tried).
 * Runs are bounded: FUZZ_RUNS valid inputs per operation (default 25) and FUZZ_BASES inputs whose
 * every mutation is sent (default 2), seeded with FUZZ_SEED (default fixed, so CI is repeatable;
 * set another to explore). A failure prints the counterexample and every failing mutation.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20261102);
const validRuns = Number(process.env.FUZZ_RUNS ?? 25);
const mutatedBases = Number(process.env.FUZZ_BASES ?? 2);

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** A value to take from the restaurant at the time of the request (an event id, a special day). */
interface Known {
  known: string;
}
const isKnown = (value: unknown): value is Known =>
  typeof value === 'object' && value !== null && 'known' in value;

/** What one run sends: the parts generated from the schemas. */
interface Input {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  contentType: string | null;
  idempotencyKey: string | null;
}

/** A request as sent: path and query already encoded, a JSON or a raw body. */
interface Call {
  route: ApiRoute;
  path: Record<string, string | Known>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: { json: unknown } | { raw: string | Buffer };
}

/*
 * One restaurant with every scope at a time, replaced before its connection reaches the rate limit
 * (120 a minute) or an operation's own limit (`PUT /menu`: 10 a minute), and after
 * `DELETE /connection` ended it. Values some operations need to succeed
 * (an event id, an upcoming special day) are made through the API when a run asks for them.
 */
class Session {
  #tenant: Tenant | null = null;
  #used = 0;
  /** Requests of each operation with a limit of its own. */
  #usedOf = new Map<ApiRoute, number>();
  #eventId: string | null = null;
  #closures = 0;
  /** Where guests order from the restaurant, once set up: its slug and a product. */
  #ordering: { slug: string; product: string } | null = null;
  /** Guests who placed an order so far (each its own address). */
  #guests = 0;
  /** Reservation times handed out (a day each, so none overlaps another); -1 before the floor is set up. */
  #bookings = -1;

  async renew(): Promise<void> {
    this.#tenant = await makeTenant(t.ctx, { plan: 'premium' });
    this.#used = 0;
    this.#usedOf.clear();
    this.#eventId = null;
    this.#closures = 0;
    this.#ordering = null;
    this.#bookings = -1;
  }

  /** Called before each request of the test's own (not before the ones that set values up). */
  async fresh(route: ApiRoute): Promise<void> {
    const ownLimit = route.auth.perConnection?.limit;
    const usedOf = this.#usedOf.get(route) ?? 0;
    if (this.#tenant === null || this.#used >= 115 || (ownLimit !== undefined && usedOf >= ownLimit))
      await this.renew();
    if (ownLimit !== undefined) this.#usedOf.set(route, (this.#usedOf.get(route) ?? 0) + 1);
  }

  ended(): void {
    this.#tenant = null;
  }

  async inject(options: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    payload?: string | Buffer;
  }) {
    if (this.#tenant === null) await this.renew();
    this.#used += 1;
    const token = (this.#tenant as Tenant).token;
    return t.app.inject({ ...options, headers: { ...bearer(token), ...options.headers } } as never);
  }

  async known(name: string): Promise<string> {
    if (name === 'event') {
      if (this.#eventId === null) {
        await this.#setUp('POST', '/v1/store/pause', {});
        const page = await this.#setUp('GET', '/v1/events?after=latest&limit=1');
        this.#eventId = page.next_after as string;
      }
      return this.#eventId;
    }
    if (name === 'closure') {
      this.#closures += 1;
      const days = 1 + (this.#closures % 50);
      const iso = new Date(t.clock.now().getTime() + days * 24 * 3600 * 1000).toISOString().slice(0, 10);
      await this.#setUp('POST', '/v1/store/closures', { date: iso, closed: true });
      return iso;
    }
    if (name === 'category') {
      const category = await this.#setUp('POST', '/v1/menu/categories', { name: 'Pizza' });
      return category.id as string;
    }
    if (name === 'product') {
      const product = await this.#setUp('POST', '/v1/menu/products', { name: 'Margherita', price: 950 });
      return product.id as string;
    }
    if (name === 'option_group') {
      const group = await this.#setUp('POST', '/v1/menu/option-groups', { name: 'Extras' });
      return group.id as string;
    }
    if (name === 'option') {
      const group = await this.#setUp('POST', '/v1/menu/option-groups', { name: 'Extras' });
      const option = await this.#setUp('POST', `/v1/menu/option-groups/${group.id}/options`, {
        name: 'Extra cheese',
        price_delta: 150,
      });
      return option.id as string;
    }
    if (name === 'order') return this.#newOrder();
    if (name === 'reservation_time') return this.#reservationTime();
    if (name === 'reservation') {
      const made = await this.#setUp('POST', '/v1/reservations', {
        starts_at: await this.#reservationTime(),
        party_size: 2,
        guest_name: 'Ada',
      });
      return made.id as string;
    }
    throw new Error(`no known value ${name}`);
  }

  /**
   * A time the restaurant offers and nobody has booked: open every day around the clock (00:00–00:00),
   * tables for 200, and noon UTC of a later day each time (a booking holds its table at most 10 hours).
   */
  async #reservationTime(): Promise<string> {
    if (this.#bookings < 0) {
      const tenantId = (this.#tenant as Tenant).restaurantId;
      await this.#setUp('PUT', '/v1/store/hours', {
        opening_hours: [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, open: '00:00', close: '00:00' })),
      });
      // Several: mutations that are still valid input book the same time again.
      for (let i = 0; i < 10; i += 1)
        await createTable({ ...t.ctx, tenantId }, { label: `Long ${i}`, seats: 200 });
      this.#bookings = 0;
    }
    this.#bookings += 1;
    const day = new Date(t.clock.now().getTime() + this.#bookings * 24 * 3600 * 1000);
    return `${day.toISOString().slice(0, 10)}T12:00:00Z`;
  }

  /** A new pending order, placed by a guest at the storefront (no /v1 operation makes one). */
  async #newOrder(): Promise<string> {
    if (this.#ordering === null) {
      await this.#setUp('PUT', '/v1/store/hours', { always_open: true });
      await this.#setUp('PATCH', '/v1/store', { order_types: { pickup: true } });
      const product = await this.#setUp('POST', '/v1/menu/products', { name: 'Margherita', price: 950 });
      const { slug } = await t.database.db
        .selectFrom('restaurants')
        .select('slug')
        .where('id', '=', (this.#tenant as Tenant).restaurantId)
        .executeTakeFirstOrThrow();
      this.#ordering = { slug, product: product.id as string };
      // The guests' limit per restaurant at its most (docs/storefront.md, Limits): the fuzzing
      // places an order for each case, faster than guests would.
      await setGuestLimit(t, this.#tenant as Tenant, 1000);
    }
    const { slug, product } = this.#ordering;
    this.#guests += 1;
    const placed = await t.app.inject({
      method: 'POST',
      url: `/s/${slug}/api/orders`,
      // Each from a guest of its own: the limit per address is not what this tests.
      remoteAddress: `10.1.${this.#guests >> 8}.${this.#guests & 255}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        type: 'pickup',
        items: [{ product_id: product, quantity: 1 }],
        payment_method: 'on_site',
      }),
    });
    assert.equal(placed.statusCode, 201, placed.body);
    return placed.json().order.id;
  }

  async #setUp(method: string, url: string, body?: object): Promise<Record<string, unknown>> {
    const res = await this.inject({
      method,
      url,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }),
    });
    assert.ok(res.statusCode < 300, `setting up with ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }
}

const session = new Session();

/** Path parameters that can name something the restaurant has: per operation, what to take. */
const knownPathValues: Record<string, Record<string, string>> = {
  getEvent: { id: 'event' },
  deleteClosure: { date: 'closure' },
  getCategory: { id: 'category' },
  updateCategory: { id: 'category' },
  deleteCategory: { id: 'category' },
  getProduct: { id: 'product' },
  updateProduct: { id: 'product' },
  deleteProduct: { id: 'product' },
  getOptionGroup: { id: 'option_group' },
  updateOptionGroup: { id: 'option_group' },
  deleteOptionGroup: { id: 'option_group' },
  createOption: { id: 'option_group' },
  getOption: { id: 'option' },
  updateOption: { id: 'option' },
  deleteOption: { id: 'option' },
  getOrder: { id: 'order' },
  acknowledgeOrder: { id: 'order' },
  acceptOrder: { id: 'order' },
  rejectOrder: { id: 'order' },
  cancelOrder: { id: 'order' },
  advanceOrder: { id: 'order' },
  getReservation: { id: 'reservation' },
  updateReservation: { id: 'reservation' },
};

/** Body fields that can take something of the restaurant (a bookable time): per operation, what to take. */
const knownBodyValues: Record<string, Record<string, string>> = {
  createReservation: { starts_at: 'reservation_time' },
};

const schemaOf = (route: ApiRoute, part: 'params' | 'querystring' | 'body') =>
  route.schema[part] as JsonSchema | undefined;

function inputs(route: ApiRoute): fc.Arbitrary<Input> {
  const options = { now: t.clock.now() };
  const params = schemaOf(route, 'params');
  const query = schemaOf(route, 'querystring');
  const body = schemaOf(route, 'body');
  const overrides: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, known] of Object.entries(knownPathValues[route.schema.operationId] ?? {})) {
    const own = params?.properties?.[name];
    if (own) overrides[name] = fc.oneof(arbitraryOf(own, options), fc.constant({ known }));
  }
  const bodyOverrides: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, known] of Object.entries(knownBodyValues[route.schema.operationId] ?? {})) {
    const own = body?.properties?.[name];
    if (own) bodyOverrides[name] = fc.oneof(arbitraryOf(own, options), fc.constant({ known }));
  }
  return fc.record({
    path: params
      ? (arbitraryOf(params, options, overrides) as fc.Arbitrary<Record<string, unknown>>)
      : fc.constant({}),
    query: query ? (arbitraryOf(query, options) as fc.Arbitrary<Record<string, unknown>>) : fc.constant({}),
    body: body ? arbitraryOf(body, options, bodyOverrides) : fc.constant(undefined),
    contentType: body
      ? fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'Application/JSON;Charset=UTF-8',
        )
      : fc.constant(null),
    idempotencyKey:
      route.method === 'POST'
        ? fc.option(fc.string({ unit: 'binary-ascii', maxLength: 254 }).map(printable))
        : fc.constant(null),
  });
}

/** Printable ASCII (what an Idempotency-Key may hold), 1 to 255 long, no spaces at the ends HTTP drops. */
const printable = (text: string) => `k${text.replace(/[^\x21-\x7e]/g, '_')}`;

/*
 * Query and path text, percent-encoded as UTF-8. A lone surrogate has no UTF-8 form: it is sent as
 * the bytes a careless encoder makes of it (WTF-8, `%ED%A0%80`), which are no UTF-8 either.
 */
function encodeText(text: string): string {
  let encoded = '';
  for (const character of text) {
    const unit = character.charCodeAt(0);
    if (character.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      encoded += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else encoded += encodeURIComponent(character);
  }
  return encoded;
}

function callOf(route: ApiRoute, input: Input): Call {
  const path: Record<string, string | Known> = {};
  for (const [name, value] of Object.entries(input.path))
    path[name] = isKnown(value) ? value : encodeText(String(value));
  const headers: Record<string, string> = {};
  if (input.contentType !== null) headers['content-type'] = input.contentType;
  if (input.idempotencyKey !== null) headers['idempotency-key'] = input.idempotencyKey;
  return {
    route,
    path,
    query: Object.entries(input.query).map(([name, value]) => [encodeText(name), encodeText(String(value))]),
    headers,
    ...(input.body === undefined ? {} : { body: { json: input.body } }),
  };
}

const payloadOf = (call: Call) =>
  call.body === undefined ? undefined : 'json' in call.body ? JSON.stringify(call.body.json) : call.body.raw;

/** The call with the values it takes from the restaurant filled in. */
async function resolved(call: Call): Promise<Call> {
  const path: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.path))
    path[name] = isKnown(value) ? encodeText(await session.known(value.known)) : value;
  const json = call.body && 'json' in call.body ? call.body.json : undefined;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ...call, path };
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(json))
    body[name] = isKnown(value) ? await session.known(value.known) : value;
  return { ...call, path, body: { json: body } };
}

function urlOf(call: Call): string {
  let url = `/v1${call.route.url}`;
  for (const [name, value] of Object.entries(call.path)) url = url.replace(`:${name}`, value as string);
  const query = call.query.map(([name, value]) => `${name}=${value}`).join('&');
  return query ? `${url}?${query}` : url;
}

/** The request as one line to read: method, URL, headers, body. */
function show(call: Call, url: string): string {
  const headers = Object.entries(call.headers).map(
    ([name, value]) => ` -H ${JSON.stringify(`${name}: ${value}`)}`,
  );
  const payload = payloadOf(call);
  const body =
    payload === undefined
      ? ''
      : ` --data ${Buffer.isBuffer(payload) ? `(bytes) ${JSON.stringify(payload.toString('latin1')).slice(0, 300)}` : JSON.stringify(payload).slice(0, 300)}`;
  return `${call.route.method} ${url}${headers.join('')}${body}`;
}

interface Answer {
  status: number;
  body: string;
  error: { code: string; message: string; request_id: string; param?: string } | null;
  request: string;
}

async function send(unresolved: Call): Promise<Answer> {
  await session.fresh(unresolved.route);
  const call = await resolved(unresolved);
  const url = urlOf(call);
  const payload = payloadOf(call);
  const res = await session.inject({
    method: call.route.method,
    url,
    headers: call.headers,
    ...(payload === undefined ? {} : { payload }),
  });
  if (call.route.method === 'DELETE' && call.route.url === '/connection' && res.statusCode < 300)
    session.ended();
  const answer: Answer = { status: res.statusCode, body: res.body, error: null, request: show(call, url) };
  const where = `${answer.request}\n  → ${res.statusCode} ${res.body.slice(0, 400)}`;
  assert.ok(res.statusCode < 500, `a 5xx: ${where}`);
  if (res.statusCode >= 400) {
    // Spec, Errors: {error: {code, message, request_id, param?}}, a code of the spec at its status.
    assert.match(String(res.headers['content-type']), /^application\/json/, `not JSON: ${where}`);
    const body = res.json() as { error?: Answer['error'] };
    assert.deepEqual(Object.keys(body), ['error'], `not the error shape: ${where}`);
    const error = body.error as NonNullable<Answer['error']>;
    const { code, message, request_id, param, ...rest } = error;
    assert.deepEqual(Object.keys(rest), [], `fields beyond the error shape: ${where}`);
    assert.ok(Object.hasOwn(errorStatus, code), `a code the spec does not list: ${where}`);
    assert.equal(
      errorStatus[code as keyof typeof errorStatus],
      res.statusCode,
      `code at another status: ${where}`,
    );
    assert.ok(typeof message === 'string' && message.length > 0, `no message: ${where}`);
    assert.match(request_id, /^req_[0-9a-f]{24}$/, `request_id: ${where}`);
    assert.equal(request_id, res.headers['x-request-id'], `request_id is not X-Request-Id: ${where}`);
    if (param !== undefined)
      assert.ok(typeof param === 'string' && param.length > 0, `empty param: ${where}`);
    answer.error = error;
  }
  return answer;
}

/** The body fields, query and path parameters of an operation: what a `param` may name. */
function fieldsOf(route: ApiRoute): Set<string> {
  const names = new Set<string>(route.method === 'POST' ? ['Idempotency-Key'] : []);
  for (const part of ['params', 'querystring', 'body'] as const)
    for (const name of Object.keys(schemaOf(route, part)?.properties ?? {})) names.add(name);
  return names;
}
const headOf = (param: string) => param.split(/[.[]/)[0] as string;

/** One way to break a request, and the answer it must get. */
interface Mutation {
  call: Call;
  what: string;
  /** 400 invalid_request or 413 payload_too_large. */
  status: 400 | 413;
  /** The `param` the error must name; null: none needed (invalid JSON, a wrong content type). */
  param: string | null;
  refusal: BadValue['refusal'];
}

/** Every mutation of a request, each breaking one thing. */
function mutationsOf(base: Call): Mutation[] {
  const route = base.route;
  const mutations: Mutation[] = [];
  const add = (
    what: string,
    change: Partial<Call>,
    param: string | null,
    refusal: Mutation['refusal'] = 'schema',
    status: 400 | 413 = 400,
  ) => mutations.push({ call: { ...base, ...change }, what, status, param, refusal });
  const jsonHeaders = { ...base.headers, 'content-type': 'application/json' };

  // The body: every site of it, a wrong value at each; unknown and missing fields.
  const bodySchema = schemaOf(route, 'body');
  const body = base.body && 'json' in base.body ? base.body.json : undefined;
  if (bodySchema && body !== undefined) {
    for (const site of lastItemsOnly(sitesOf(bodySchema, body))) {
      const param = paramOf(site.path);
      const own = site.schema.anyOf?.find((branch) => branch.type === 'object') ?? site.schema;
      // A nullable object sent as null (PATCH /store `busy: null`) has no fields to add or leave out.
      const value = site.path.reduce<unknown>(
        (at, part) => (at as Record<string | number, unknown>)[part],
        body,
      );
      if (site.present && own.type === 'object' && value !== null) {
        add(
          `an unknown field in ${param || 'the body'}`,
          { body: { json: withValueAt(body, [...site.path, 'zz_unknown'], 1) } },
          paramOf([...site.path, 'zz_unknown']),
        );
        for (const name of own.required ?? []) {
          if (own.properties?.[name]?.default !== undefined) continue;
          add(
            `${paramOf([...site.path, name])} missing`,
            { body: { json: withValueAt(body, [...site.path, name], undefined) } },
            paramOf([...site.path, name]),
          );
        }
      }
      if (site.path.length === 0) continue;
      const item = site.schema.items
        ? fc.sample(arbitraryOf(site.schema.items, { now: t.clock.now() }), { numRuns: 1, seed })[0]
        : undefined;
      for (const bad of badValuesFor(site.schema, item)) {
        add(
          `${bad.what} in ${param}`,
          { body: { json: withValueAt(body, site.path, bad.value) } },
          param,
          bad.refusal,
        );
      }
    }
    // Invalid UTF-8 in free text (a field without pattern or format): the bytes name no character.
    const text = sitesOf(bodySchema, body).find((site) => isFreeText(site.schema));
    if (text) {
      const marked = JSON.stringify(withValueAt(body, text.path, '\u0001MARK\u0001'));
      const [head, tail] = marked.split('\\u0001MARK\\u0001') as [string, string];
      const raw = Buffer.concat([
        Buffer.from(`${head}a`),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(`b${tail}`),
      ]);
      add(`invalid UTF-8 bytes in ${paramOf(text.path)}`, { body: { raw } }, null);
    }
    const limit = route.bodyLimit ?? 64 * 1024;
    const json = JSON.stringify(body);
    const padding = ' '.repeat(limit + 1 - Buffer.byteLength(json));
    add('a body one byte over the limit', { body: { raw: `${padding}${json}` } }, null, 'schema', 413);
    add('an empty body with a JSON type', { body: { raw: '' } }, null);
    const { 'content-type': _, ...withoutType } = base.headers;
    // The order moves read a missing body as `{}` (decisions.md); every other operation refuses it.
    if (!route.bodyMayBeAbsent) add('no body at all', { body: undefined, headers: withoutType }, null);
  } else if (route.method !== 'GET') {
    // An operation without a request body refuses one (decisions: Input).
    add(
      'a body where the operation takes none',
      { body: { json: { zz_field: 1 } }, headers: jsonHeaders },
      'zz_field',
    );
  } else {
    // GET never has a body: a 400 rather than ignored (decisions: Input), refused before it is read.
    add('a JSON body on GET', { body: { json: { zz_field: 1 } }, headers: jsonHeaders }, null);
  }
  // The body as a whole: invalid JSON, JSON that is no object, other content types.
  const payload = body === undefined ? '{"zz_field":1}' : JSON.stringify(body);
  for (const raw of ['{', '{"a":}', '{"a":1,}', "{'a':1}", '{}x', 'NaN', payload.slice(0, -1)])
    add(`invalid JSON ${JSON.stringify(raw).slice(0, 40)}`, { body: { raw }, headers: jsonHeaders }, null);
  for (const raw of ['[]', '"x"', '1', 'null', 'true'])
    add(`the JSON value ${raw} for a body`, { body: { raw }, headers: jsonHeaders }, null);
  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/xml',
    'multipart/form-data; boundary=zz',
    'application/json; charset=iso-8859-1',
  ])
    add(
      `Content-Type ${type}`,
      { body: { raw: payload }, headers: { ...base.headers, 'content-type': type } },
      null,
    );

  // The query: unknown and repeated parameters, and wrong values of each.
  add('an unknown query parameter', { query: [...base.query, ['zz_param', '1']] }, 'zz_param');
  add('an unknown query parameter without value', { query: [...base.query, ['zz_param', '']] }, 'zz_param');
  const querySchema = schemaOf(route, 'querystring');
  for (const [name, schema] of Object.entries(querySchema?.properties ?? {})) {
    const others = base.query.filter(([sent]) => sent !== name);
    const sample =
      base.query.find(([sent]) => sent === name)?.[1] ??
      encodeText(String(fc.sample(arbitraryOf(schema, { now: t.clock.now() }), { numRuns: 1, seed })[0]));
    add(`${name} repeated`, { query: [...others, [name, sample], [name, sample]] }, name);
    for (const bad of badTextFor(schema))
      add(
        `${bad.what} in the query parameter ${name}`,
        { query: [...others, [name, bad.value as string]] },
        name,
        bad.refusal,
      );
  }

  // The path: each parameter malformed.
  const pathSchema = schemaOf(route, 'params');
  for (const [name, schema] of Object.entries(pathSchema?.properties ?? {})) {
    const malformed: BadValue[] = [
      { value: 'x', what: 'a malformed value', refusal: accepts(schema, 'x') ? 'content' : 'schema' },
      { value: encodeText('😀'), what: 'an emoji', refusal: accepts(schema, '😀') ? 'content' : 'schema' },
    ];
    for (const bad of [...malformed, ...badTextFor(schema)].filter((bad) => bad.value !== '')) {
      // A path that is not percent-encoded UTF-8 is refused before routing: no parameter to name.
      add(
        `${bad.what} in the path parameter ${name}`,
        { path: { ...base.path, [name]: bad.value as string } },
        decodes(bad.value as string) ? name : null,
        bad.refusal,
      );
    }
  }

  // Idempotency-Key: 1 to 255 printable ASCII characters (decisions: Idempotency).
  if (route.method === 'POST') {
    for (const [what, key] of [
      ['256 characters', 'k'.repeat(256)],
      ['a character beyond ASCII', 'caf\u00e9'],
      ['a tab', 'a\tb'],
    ] as const)
      add(
        `an Idempotency-Key of ${what}`,
        { headers: { ...base.headers, 'idempotency-key': key } },
        'Idempotency-Key',
      );
  }
  return mutations;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

const isFreeText = (schema: JsonSchema): boolean =>
  schema.anyOf
    ? schema.anyOf.some(isFreeText)
    : schema.type === 'string' &&
      schema.pattern === undefined &&
      schema.format === undefined &&
      schema.enum === undefined;

/** Of the items of an array only the last one: the same schema again adds nothing but requests. */
function lastItemsOnly<S extends { path: Path }>(sites: S[]): S[] {
  const lastIndex = new Map<string, number>();
  for (const { path } of sites) {
    path.forEach((part, i) => {
      if (typeof part !== 'number') return;
      const key = paramOf(path.slice(0, i));
      lastIndex.set(key, Math.max(lastIndex.get(key) ?? 0, part));
    });
  }
  return sites.filter(({ path }) =>
    path.every((part, i) => typeof part !== 'number' || lastIndex.get(paramOf(path.slice(0, i))) === part),
  );
}

/** Wrong text for a query or path parameter, percent-encoded as it is sent. */
function badTextFor(schema: JsonSchema): BadValue[] {
  const typed = (values: string[]): BadValue[] =>
    values.map((value) => ({ value, what: JSON.stringify(value), refusal: 'schema' }));
  const numbers = ['0x10', '1e1', '%201', '1%20', '%2B1', 'abc', '', '0b1', 'Infinity', 'NaN', '1%2C2'];
  if (schema.type === 'integer')
    return typed([...numbers, '1.0', '1.5', '99999999999999999999', ...bounds(schema)]);
  if (schema.type === 'number') return typed([...numbers, ...bounds(schema)]);
  if (schema.type === 'boolean') return typed(['yes', '2']);
  const text = [...badValuesFor(schema).filter((bad) => typeof bad.value === 'string'), ...badText];
  const unique = new Map(text.map((bad) => [bad.value as string, bad]));
  return [
    ...[...unique.values()].map((bad) => ({
      ...bad,
      value: encodeText(bad.value as string),
      refusal: bad.refusal === 'schema' || accepts(schema, bad.value) ? bad.refusal : ('schema' as const),
    })),
    { value: '%FF', what: 'invalid UTF-8 (%FF)', refusal: 'content' },
    { value: 'a%E0%A4%A', what: 'a broken percent escape', refusal: 'content' },
  ];
}

const bounds = (schema: JsonSchema) => [
  ...(schema.minimum === undefined ? [] : [String(schema.minimum - 1)]),
  ...(schema.maximum === undefined ? [] : [String(schema.maximum + 1)]),
];

/**
 * What is wrong with the answer to a mutation, or null. `base` is the answer to the request before
 * the mutation: a value that only the content rules refuse may be refused after a field the
 * operation refused in the unmutated request already.
 */
function misjudged(mutation: Mutation, answer: Answer, base: Answer): string | null {
  // Accepted: the answer is a success, or the unmutated request's own (e.g. 404 for its unknown id).
  if (mutation.refusal === 'either' && (answer.status < 300 || answer.status === base.status)) return null;
  if (answer.status !== mutation.status) return `expected ${mutation.status}, got ${answer.status}`;
  const code = mutation.status === 413 ? 'payload_too_large' : 'invalid_request';
  if (answer.error?.code !== code) return `expected ${code}, got ${answer.error?.code}`;
  if (mutation.param === null || answer.error.param === mutation.param) return null;
  const param = answer.error.param;
  if (mutation.refusal !== 'schema' && param !== undefined && param === base.error?.param) return null;
  return `expected param ${mutation.param}, got ${param ?? 'none'}`;
}

describe('contract fuzzing of every /v1 operation', () => {
  for (const route of apiV1Routes) {
    const name = `${route.method} ${route.url}`;

    test(`${name}: generated input → never a 5xx, errors in the spec's shape, some succeed`, async () => {
      await session.renew();
      let succeeded = 0;
      await fc.assert(
        fc.asyncProperty(inputs(route), async (input) => {
          const call = callOf(route, input);
          const answer = await send(call);
          if (answer.status < 300) succeeded += 1;
          const where = `${answer.request}\n  → ${answer.status} ${answer.body.slice(0, 400)}`;
          assert.ok(
            answer.status < 300 || [400, 404, 409, 422].includes(answer.status),
            `a valid request refused with ${answer.status}: ${where}`,
          );
          if (answer.status === 400) {
            const param = answer.error?.param;
            assert.ok(
              param !== undefined && fieldsOf(route).has(headOf(param)),
              `a valid request refused without naming a field of the operation: ${where}`,
            );
          }
        }),
        { numRuns: validRuns, seed },
      );
      assert.ok(succeeded > 0, `none of ${validRuns} generated requests succeeded`);
    });

    test(`${name}: mutated input → 400 invalid_request naming the field (413 if too large), never a 5xx`, async () => {
      await session.renew();
      await fc.assert(
        fc.asyncProperty(fc.array(inputs(route), { minLength: 4, maxLength: 4 }), async (candidates) => {
          // A restaurant of its own for the base and all its mutations: the objects the base names
          // (resolved once) are that restaurant's, so an accepted mutation is answered as the base.
          await session.renew();
          // The base: the first candidate the operation takes (else the last), its values resolved once.
          let base = callOf(route, { ...(candidates[0] as Input), idempotencyKey: null });
          let baseAnswer: Answer | undefined;
          for (const input of candidates) {
            base = await resolved(callOf(route, { ...input, idempotencyKey: null }));
            baseAnswer = await send(base);
            if (baseAnswer.status < 300) break;
          }
          const unmutated = baseAnswer as Answer;
          const failures: string[] = [];
          for (const mutation of mutationsOf(base)) {
            let answer: Answer;
            try {
              answer = await send(mutation.call);
            } catch (error) {
              failures.push(`${mutation.what}: ${(error as Error).message}`);
              continue;
            }
            const wrong = misjudged(mutation, answer, unmutated);
            if (wrong)
              failures.push(
                `${mutation.what}: ${wrong}\n    ${answer.request}\n    → ${answer.status} ${answer.body.slice(0, 300)}`,
              );
          }
          assert.equal(
            failures.length,
            0,
            `${failures.length} mutations answered wrongly. Unmutated: ${unmutated.request}\n  → ${unmutated.status} ${unmutated.body.slice(0, 200)}\n  ${failures.join('\n  ')}`,
          );
        }),
        { numRuns: mutatedBases, seed, endOnFailure: true },
      );
    });
  }
});
