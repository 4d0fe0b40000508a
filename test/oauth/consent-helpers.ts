import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { type AppType, createApp, setAppStatus } from '../../src/domain/apps/apps.service.ts';
import { createRestaurant } from '../../src/domain/restaurants/restaurants.service.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';
import type { Scope } from '../../src/domain/shared/scopes.ts';

export const password = 'correct horse battery staple';

/** A browser over app.inject: keeps the cookies the service sets and sends them back. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly app: FastifyInstance;
  readonly remoteAddress: string;

  constructor(app: FastifyInstance, remoteAddress = '127.0.0.1') {
    this.app = app;
    this.remoteAddress = remoteAddress;
  }

  get(url: string): Promise<LightMyRequestResponse> {
    return this.send({ method: 'GET', url });
  }

  post(
    url: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.send({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
  }

  private async send(request: {
    method: 'GET' | 'POST';
    url: string;
    headers?: Record<string, string>;
    payload?: string;
  }): Promise<LightMyRequestResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await this.app.inject({
      ...request,
      headers: { ...request.headers, ...(cookie ? { cookie } : {}) },
      remoteAddress: this.remoteAddress,
    });
    for (const set of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      if (set.value === '' || set.maxAge === 0 || (set.expires && set.expires.getTime() <= Date.now()))
        this.cookies.delete(set.name);
      else this.cookies.set(set.name, set.value);
    }
    return res;
  }
}

/** The CSRF token of the (first) form on a page. */
export function csrfOf(res: LightMyRequestResponse): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
  assert.ok(token, `no CSRF token on the page (${res.statusCode}): ${res.body.slice(0, 300)}`);
  return token;
}

/** The query of an authorization request; `undefined` leaves a parameter out. */
export function authorizeQuery(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  return query.toString();
}

/** Signs in through the page: GET (for the CSRF token), then the sign-in form. */
export async function signIn(
  browser: Browser,
  query: string,
  email: string,
  secret = password,
): Promise<LightMyRequestResponse> {
  const page = await browser.get(`/oauth/authorize?${query}`);
  assert.equal(page.statusCode, 200, page.body);
  return browser.post(`/oauth/authorize/sign-in?${query}`, { _csrf: csrfOf(page), email, password: secret });
}

/** Opens the consent page and presses Connect (or Cancel) for a restaurant. */
export async function decide(
  browser: Browser,
  query: string,
  decision: 'connect' | 'cancel',
  restaurantId?: string,
): Promise<LightMyRequestResponse> {
  const page = await browser.get(`/oauth/authorize?${query}`);
  assert.equal(page.statusCode, 200, page.body);
  return browser.post(`/oauth/authorize/consent?${query}`, {
    _csrf: csrfOf(page),
    decision,
    ...(restaurantId ? { restaurant: restaurantId } : {}),
  });
}

/** The restaurants a consent page offers (the values of its radio buttons). */
export function offeredRestaurants(res: LightMyRequestResponse): string[] {
  return [...res.body.matchAll(/name="restaurant" value="([^"]+)"/g)].map((m) => m[1] as string);
}

let serial = 0;
function tag(): string {
  serial += 1;
  return `${process.pid}-${serial}-${randomBytes(3).toString('hex')}`;
}

export async function makeAccount(
  ctx: Ctx,
  options: { developer?: boolean } = {},
): Promise<{ id: string; email: string }> {
  const email = `${options.developer ? 'dev' : 'owner'}-${tag()}@example.test`;
  const account = await createAccount(ctx, { email, password, developer: options.developer ?? false });
  return { id: account.id, email };
}

export async function makeRestaurant(
  ctx: Ctx,
  ownerIds: readonly string[],
  options: { livemode?: boolean } = {},
): Promise<{ id: string; name: string }> {
  const restaurant = await createRestaurant(ctx, {
    name: `${options.livemode === false ? 'Test kitchen' : 'Bistro'} ${tag()}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    country: 'DE',
    plan: 'pro',
    livemode: options.livemode ?? true,
    ownerIds,
  });
  return { id: restaurant.id, name: restaurant.name };
}

export async function makeApp(
  ctx: Ctx,
  developerId: string,
  options: {
    type?: AppType;
    status?: 'pending' | 'approved' | 'rejected' | 'suspended';
    redirectUris: readonly string[];
    scopes?: readonly Scope[];
    name?: string;
  },
): Promise<{ id: string; clientId: string; clientSecret: string | null }> {
  const { app, clientSecret } = await createApp(ctx, {
    developerId,
    name: options.name ?? `App ${tag()}`,
    type: options.type ?? 'confidential',
    redirectUris: options.redirectUris,
    scopes: options.scopes ?? ['orders:read', 'menu:read', 'store:read'],
    logoUrl: 'https://app.example.test/logo.png',
    website: 'https://app.example.test/',
  });
  const status = options.status ?? 'approved';
  if (status !== 'pending') await setAppStatus(ctx, app.clientId, status);
  return { id: app.id, clientId: app.clientId, clientSecret };
}

/** The parameters of a redirect's Location, with the address before them. */
export function redirectOf(res: LightMyRequestResponse): { to: string; params: Record<string, string> } {
  assert.equal(res.statusCode, 303, `expected a redirect, got ${res.statusCode}: ${res.body.slice(0, 500)}`);
  const location = String(res.headers.location);
  const at = location.indexOf('?');
  const to = at === -1 ? location : location.slice(0, at);
  return { to, params: Object.fromEntries(new URLSearchParams(at === -1 ? '' : location.slice(at + 1))) };
}
