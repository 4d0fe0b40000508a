import assert from 'node:assert/strict';
import { bearer, makeTenant, type Tenant, type TestApp, tokenFor } from '../harness.ts';

export const [mon, tue, wed, thu, fri, sat, sun] = [0, 1, 2, 3, 4, 5, 6];

export interface Window {
  weekday: number;
  open: string;
  close: string;
}

/** The same window on every day of the week. */
export function daily(open: string, close: string): Window[] {
  return [mon, tue, wed, thu, fri, sat, sun].map((weekday) => ({ weekday, open, close }));
}

/** Moves the test clock to an instant (the clock only advances, by any amount, also backwards). */
export function setClock(t: TestApp, iso: string): void {
  t.clock.advance(new Date(iso).getTime() - t.clock.now().getTime());
}

/** A request with a token issued at the clock's time: access tokens expire, and the tests move the clock by months. */
async function send(
  t: TestApp,
  tenant: Tenant,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  body?: object,
) {
  const headers = bearer(await tokenFor(t.ctx, tenant, ['store:read', 'store:write']));
  return t.app.inject({
    method,
    url: `/v1${url}`,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/**
 * A restaurant whose store has these hours (PUT /store/hours). Restaurants are made in
 * Europe/Berlin and the API cannot change a restaurant's time zone, so another zone is set
 * directly in the test database.
 */
export async function storeWith(
  t: TestApp,
  hours: { opening_hours?: Window[]; always_open?: boolean },
  timezone = 'Europe/Berlin',
): Promise<Tenant> {
  const tenant = await makeTenant(t.ctx);
  if (timezone !== 'Europe/Berlin')
    await t.ctx.db
      .updateTable('restaurants')
      .set({ timezone })
      .where('id', '=', tenant.restaurantId)
      .execute();
  const res = await send(t, tenant, 'PUT', '/store/hours', hours);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().object, 'store_hours');
  return tenant;
}

export interface StatusView {
  status: string;
  next_opening_at: string | null;
}

/** GET /v1/store with the clock at `iso`: its status and next_opening_at. */
export async function statusAt(t: TestApp, tenant: Tenant, iso: string): Promise<StatusView> {
  setClock(t, iso);
  const res = await send(t, tenant, 'GET', '/store');
  assert.equal(res.statusCode, 200, res.body);
  const { status, next_opening_at } = res.json();
  return { status, next_opening_at };
}

/** The store's time zone as GET /v1/store shows it. */
export async function timezoneOf(t: TestApp, tenant: Tenant): Promise<string> {
  return (await send(t, tenant, 'GET', '/store')).json().timezone;
}

/** A new special day (POST /store/closures → 201); it must be today or later at the clock's time. */
export async function addSpecialDay(
  t: TestApp,
  tenant: Tenant,
  day: { date: string; closed: boolean; hours?: { open: string; close: string }[]; note?: string },
): Promise<void> {
  const res = await send(t, tenant, 'POST', '/store/closures', day);
  assert.equal(res.statusCode, 201, res.body);
}

export async function removeSpecialDay(t: TestApp, tenant: Tenant, date: string): Promise<void> {
  const res = await send(t, tenant, 'DELETE', `/store/closures/${date}`);
  assert.equal(res.statusCode, 200, res.body);
}

/** POST /store/pause at the clock's time; the Store it answers. */
export async function pause(
  t: TestApp,
  tenant: Tenant,
  body: { until?: string | null; note?: string },
): Promise<StatusView & { paused_until: string | null }> {
  const res = await send(t, tenant, 'POST', '/store/pause', body);
  assert.equal(res.statusCode, 200, res.body);
  const { status, next_opening_at, paused_until } = res.json();
  return { status, next_opening_at, paused_until };
}

/** DELETE /store/pause at the clock's time; the Store's status it answers. */
export async function resume(t: TestApp, tenant: Tenant): Promise<StatusView> {
  const res = await send(t, tenant, 'DELETE', '/store/pause');
  assert.equal(res.statusCode, 200, res.body);
  const { status, next_opening_at } = res.json();
  return { status, next_opening_at };
}
