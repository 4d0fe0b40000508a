import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeTenant, newAccount, type Tenant, type TestApp } from '../harness.ts';
import { appWithRoutes, pageSession, type Route } from './tenant-isolation-helpers.ts';

/*
 * Every role on every page of a restaurant in the dashboard, as registered: each page
 * (`/dashboard/restaurants/{id}…` with no other parameter) is opened by an owner, by staff and by
 * an owner of another restaurant. Owners open all of them; staff the overview, the order board and
 * the reservations (not their settings); the other restaurant's owner none. Staff's posts to the
 * owners' pages are the restaurant's 404 and change nothing. A new page is swept by being
 * registered.
 */
let t: TestApp;
let routes: Route[];
let tenant: Tenant;
let sessions: Record<'owner' | 'staff' | 'stranger', { cookie: string; csrf: string }>;

before(async () => {
  ({ t, routes } = await appWithRoutes({}));
  tenant = await makeTenant(t.ctx);
  const other = await makeTenant(t.ctx);
  const [owner, staff, stranger] = await Promise.all([
    newAccount(t, false),
    newAccount(t, false),
    newAccount(t, false),
  ]);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values([
      { tenant_id: tenant.restaurantId, account_id: owner.id, role: 'owner' },
      { tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' },
      { tenant_id: other.restaurantId, account_id: stranger.id, role: 'owner' },
    ])
    .execute();
  sessions = {
    owner: await pageSession(t, 'dashboard', owner.email),
    staff: await pageSession(t, 'dashboard', staff.email),
    stranger: await pageSession(t, 'dashboard', stranger.email),
  };
});
after(() => t.close());

const prefix = '/dashboard/restaurants/:restaurantId';
/** The pages staff may open: the overview (and its live part), the kitchen's and the host stand's. */
const forStaff = (url: string) =>
  url === prefix ||
  (/^\/dashboard\/restaurants\/:restaurantId\/(overview|orders|reservations)(\/|$)/.test(url) &&
    !url.startsWith(`${prefix}/reservations/settings`));
const pagesOf = (method: string) =>
  routes.filter(
    (route) => route.method === method && route.url.startsWith(prefix) && route.params.length === 1,
  );

const open = (url: string, who: keyof typeof sessions) =>
  t.app.inject({
    method: 'GET',
    url: url.replace(':restaurantId', tenant.restaurantId),
    headers: { cookie: sessions[who].cookie, accept: 'text/html' },
  });

test('owners open every page, staff only theirs, another restaurant’s owner none', async () => {
  const pages = pagesOf('GET');
  assert.ok(
    pages.some((route) => route.url === `${prefix}/team`),
    'the sweep reaches the team page',
  );
  for (const route of pages) {
    assert.notEqual((await open(route.url, 'owner')).statusCode, 404, `owner: ${route.url}`);
    const staff = (await open(route.url, 'staff')).statusCode;
    if (forStaff(route.url)) assert.notEqual(staff, 404, `staff: ${route.url}`);
    else assert.equal(staff, 404, `staff: ${route.url}`);
    assert.equal((await open(route.url, 'stranger')).statusCode, 404, `stranger: ${route.url}`);
  }
});

test('staff’s posts to the owners’ pages are 404 and change nothing', async () => {
  const members = () =>
    t.ctx.db
      .selectFrom('restaurant_members')
      .select(['account_id', 'role'])
      .where('tenant_id', '=', tenant.restaurantId)
      .orderBy('account_id')
      .execute();
  const before = await members();
  for (const route of pagesOf('POST').filter((route) => !forStaff(route.url))) {
    const res = await t.app.inject({
      method: 'POST',
      url: route.url.replace(':restaurantId', tenant.restaurantId),
      headers: { cookie: sessions.staff.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: sessions.staff.csrf,
        email: 'x@example.test',
        role: 'owner',
      }).toString(),
    });
    assert.equal(res.statusCode, 404, `staff: POST ${route.url}`);
  }
  assert.deepEqual(await members(), before);
  assert.equal((await t.ctx.db.selectFrom('invitations').select('id').execute()).length, 0);
});
