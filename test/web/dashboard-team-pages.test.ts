import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, makeTenant, newAccount, password, type Tenant, type TestApp } from '../harness.ts';
import { Browser, csrfOf } from '../oauth/consent-helpers.ts';
import { type SmtpReceiver, sentByQueue, smtpReceiver } from '../worker/smtp-receiver.ts';

/*
 * The dashboard's Team page over HTTP (docs/console-and-dashboard.md, "Team"): inviting by e-mail
 * (the mail sent by the worker's queue to a local SMTP server, in the restaurant's language),
 * joining by the link as a new person and with an existing account, links that expired, were used,
 * withdrawn or replaced refused, role changes, removal ending access and sessions, the last owner
 * kept, the invitation limit; staff and other restaurants' ids get 404; CSRF.
 */
let t: TestApp;
let smtp: SmtpReceiver;
before(async () => {
  smtp = await smtpReceiver();
  t = await buildTestApp();
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

const teamOf = (tenant: Tenant) => `/dashboard/restaurants/${tenant.restaurantId}/team`;
const h1Of = (res: LightMyRequestResponse) => /<h1>(.*?)<\/h1>/.exec(res.body)?.[1];
let serial = 0;
const fresh = () => {
  serial += 1;
  return `invitee-${serial}-${process.pid}@example.test`;
};

async function signedIn(email: string): Promise<Browser> {
  const browser = new Browser(t.app);
  const form = await browser.get('/dashboard/sign-in');
  const res = await browser.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password });
  assert.equal(res.statusCode, 303);
  return browser;
}

/** A restaurant with one owner (of it alone), signed in. */
async function ownedTenant(): Promise<{
  tenant: Tenant;
  owner: { id: string; email: string };
  browser: Browser;
}> {
  const tenant = await makeTenant(t.ctx);
  // makeTenant's developer owns every test restaurant: this one's owner is ours alone.
  await t.ctx.db.deleteFrom('restaurant_members').where('tenant_id', '=', tenant.restaurantId).execute();
  const owner = await member(tenant, 'owner');
  return { tenant, owner, browser: await signedIn(owner.email) };
}

async function member(tenant: Tenant, role: 'owner' | 'staff'): Promise<{ id: string; email: string }> {
  const account = await newAccount(t, false);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: tenant.restaurantId, account_id: account.id, role })
    .execute();
  return account;
}

/** Posts a form of the team page (with the CSRF token of its page). */
async function postForm(browser: Browser, tenant: Tenant, path: string, form: Record<string, string>) {
  const page = await browser.get(teamOf(tenant));
  return browser.post(`${teamOf(tenant)}${path}`, { _csrf: csrfOf(page), ...form });
}

/** Invites `email` and returns the link's path from the mail. */
async function invite(browser: Browser, tenant: Tenant, email: string, role = 'staff'): Promise<string> {
  const res = await postForm(browser, tenant, '/invitations', { email, role });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers.location, `${teamOf(tenant)}?done=invited`);
  const mail = (await sentByQueue(t, smtp)).find((sent) => sent.to.toLowerCase() === email.toLowerCase());
  assert.ok(mail, `no mail to ${email}`);
  const url = /(http:\/\/\S+\/dashboard\/invitations\/\S+)/.exec(mail.text)?.[1];
  assert.ok(url, mail.text);
  return new URL(url).pathname;
}

const roleOf = async (tenant: Tenant, accountId: string) =>
  (
    await t.ctx.db
      .selectFrom('restaurant_members')
      .select('role')
      .where('tenant_id', '=', tenant.restaurantId)
      .where('account_id', '=', accountId)
      .executeTakeFirst()
  )?.role;

test('a new person joins by the mailed link: sets name and password, is staff, and the link is used up', async () => {
  const { tenant, browser } = await ownedTenant();
  await t.ctx.db
    .updateTable('restaurants')
    .set({ language: 'de' })
    .where('id', '=', tenant.restaurantId)
    .execute();
  const email = fresh();
  const res = await postForm(browser, tenant, '/invitations', { email, role: 'staff' });
  assert.equal(res.statusCode, 303);
  const [mail] = (await sentByQueue(t, smtp)).filter((sent) => sent.to === email);
  assert.ok(mail);
  // In the restaurant's language.
  assert.match(mail.text, /Sie sind eingeladen, dem Team von Restaurant .* beizutreten, als Mitarbeiter/);
  assert.match(mail.text, /Der Link gilt einmal, 7 Tage lang/);
  const link = new URL(/(http:\/\/\S+)/.exec(mail.text)?.[1] ?? '').pathname;

  const list = await browser.get(teamOf(tenant));
  assert.match(list.body, new RegExp(`<h3>${email}</h3>`));
  assert.match(list.body, /Expires<\/dt><dd>Nov 9, 2026/);

  const guest = new Browser(t.app);
  const form = await guest.get(link);
  assert.equal(form.statusCode, 200);
  assert.match(h1Of(form) ?? '', /^Join Restaurant /);
  const short = await guest.post(link, { _csrf: csrfOf(form), name: '', password: 'short' });
  assert.equal(short.statusCode, 400);
  assert.match(short.body, /id="name-error">Enter your name\./);
  assert.match(short.body, /id="password-error">Choose a password of 10 to 1,000 characters\./);
  assert.equal(
    await t.ctx.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst(),
    undefined,
  );

  const forged = await guest.post(link, { _csrf: 'forged', name: 'Ina Vite', password });
  assert.equal(forged.statusCode, 403);
  const joined = await guest.post(link, { _csrf: csrfOf(form), name: 'Ina Vite', password });
  assert.equal(joined.statusCode, 303);
  assert.equal(joined.headers.location, `/dashboard/restaurants/${tenant.restaurantId}`);
  const account = await t.ctx.db
    .selectFrom('accounts')
    .select(['id', 'name', 'developer'])
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  assert.deepEqual([account.name, account.developer], ['Ina Vite', false]);
  assert.equal(await roleOf(tenant, account.id), 'staff');
  // Signed in at once, as staff: the overview yes, the team page is not theirs.
  assert.equal((await guest.get(`/dashboard/restaurants/${tenant.restaurantId}`)).statusCode, 200);
  assert.equal((await guest.get(teamOf(tenant))).statusCode, 404);

  const again = await new Browser(t.app).get(link);
  assert.equal(again.statusCode, 404);
  assert.equal(h1Of(again), 'Invitation not valid');
  assert.doesNotMatch((await browser.get(teamOf(tenant))).body, new RegExp(`<h3>${email}</h3>`));
});

test('an existing account joins with its password, or with one button when signed in', async () => {
  const { tenant, browser } = await ownedTenant();
  const existing = await newAccount(t, false);
  const link = await invite(browser, tenant, existing.email.toUpperCase(), 'owner');
  const visitor = new Browser(t.app);
  const form = await visitor.get(link);
  assert.match(form.body, /Enter its password to join/);
  assert.doesNotMatch(form.body, /name="name"/);
  const wrong = await visitor.post(link, { _csrf: csrfOf(form), password: 'not the password' });
  assert.equal(wrong.statusCode, 400);
  assert.match(wrong.body, /The password is not right/);
  const joined = await visitor.post(link, { _csrf: csrfOf(form), password });
  assert.equal(joined.statusCode, 303);
  assert.equal(await roleOf(tenant, existing.id), 'owner');
  assert.equal((await visitor.get(teamOf(tenant))).statusCode, 200);

  // Signed in already: one button.
  const other = (await ownedTenant()).tenant;
  const otherOwner = await signedIn(
    (
      await t.ctx.db
        .selectFrom('restaurant_members as m')
        .innerJoin('accounts as a', 'a.id', 'm.account_id')
        .select('a.email')
        .where('m.tenant_id', '=', other.restaurantId)
        .executeTakeFirstOrThrow()
    ).email,
  );
  const second = await invite(otherOwner, other, existing.email);
  const page = await visitor.get(second);
  assert.match(page.body, />Join the team<\/button>/);
  assert.doesNotMatch(page.body, /name="password"/);
  assert.equal((await visitor.post(second, { _csrf: csrfOf(page) })).statusCode, 303);
  assert.equal(await roleOf(other, existing.id), 'staff');
});

test('withdrawn, replaced and expired links are refused; bad input and members are refused beside the field', async () => {
  const { tenant, browser } = await ownedTenant();
  const withdrawn = await invite(browser, tenant, fresh());
  const id = (
    await t.ctx.db
      .selectFrom('invitations')
      .select('id')
      .where('tenant_id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow()
  ).id;
  const done = await postForm(browser, tenant, `/invitations/${id}/withdraw`, {});
  assert.equal(done.headers.location, `${teamOf(tenant)}?done=withdrawn`);
  assert.equal((await new Browser(t.app).get(withdrawn)).statusCode, 404);

  const email = fresh();
  const replaced = await invite(browser, tenant, email);
  const current = await invite(browser, tenant, email);
  assert.equal((await new Browser(t.app).get(replaced)).statusCode, 404);
  assert.equal((await new Browser(t.app).get(current)).statusCode, 200);

  const bad = await postForm(browser, tenant, '/invitations', { email: 'not an address', role: 'staff' });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /id="email-error">Enter an e-mail address/);
  const staff = await member(tenant, 'staff');
  const already = await postForm(browser, tenant, '/invitations', { email: staff.email, role: 'owner' });
  assert.equal(already.statusCode, 400);
  assert.match(already.body, /id="email-error">This person is a member already/);
  const role = await postForm(browser, tenant, '/invitations', { email: fresh(), role: 'admin' });
  assert.equal(role.statusCode, 400);
  assert.match(role.body, /id="role-error">Choose owner or staff/);

  t.clock.advance(7 * 24 * 60 * 60 * 1000);
  const expired = await new Browser(t.app).get(current);
  assert.equal(expired.statusCode, 404);
  assert.equal(h1Of(expired), 'Invitation not valid');
  t.clock.advance(-7 * 24 * 60 * 60 * 1000);
});

test('roles change, the last owner stays, and a removed member loses access and, alone, their sessions', async () => {
  const { tenant, owner, browser } = await ownedTenant();
  const staff = await member(tenant, 'staff');
  const staffBrowser = await signedIn(staff.email);

  const demote = await postForm(browser, tenant, `/members/${owner.id}/role`, { role: 'staff' });
  assert.equal(demote.statusCode, 400);
  assert.match(
    demote.body,
    new RegExp(`id="role-${owner.id}-error">The restaurant needs at least one owner`),
  );
  assert.equal(await roleOf(tenant, owner.id), 'owner');
  const confirm = await browser.get(`${teamOf(tenant)}/members/${owner.id}/remove`);
  const removeLast = await browser.post(`${teamOf(tenant)}/members/${owner.id}/remove`, {
    _csrf: csrfOf(confirm),
  });
  assert.equal(removeLast.statusCode, 400);
  assert.equal(await roleOf(tenant, owner.id), 'owner');

  const promote = await postForm(browser, tenant, `/members/${staff.id}/role`, { role: 'owner' });
  assert.equal(promote.headers.location, `${teamOf(tenant)}?done=role`);
  assert.equal((await staffBrowser.get(teamOf(tenant))).statusCode, 200);
  assert.equal(
    (await postForm(browser, tenant, `/members/${staff.id}/role`, { role: 'staff' })).statusCode,
    303,
  );
  assert.equal((await staffBrowser.get(teamOf(tenant))).statusCode, 404);

  // A member of another restaurant too keeps their session there.
  const elsewhere = await member(tenant, 'staff');
  const otherTenant = await makeTenant(t.ctx);
  await t.ctx.db
    .insertInto('restaurant_members')
    .values({ tenant_id: otherTenant.restaurantId, account_id: elsewhere.id, role: 'staff' })
    .execute();
  const elsewhereBrowser = await signedIn(elsewhere.email);

  for (const removed of [staff, elsewhere]) {
    const page = await browser.get(`${teamOf(tenant)}/members/${removed.id}/remove`);
    assert.equal(page.statusCode, 200);
    assert.match(h1Of(page) ?? '', /^Remove .* from the team\?$/);
    assert.equal(await roleOf(tenant, removed.id), 'staff', 'the confirmation changes nothing');
    const done = await browser.post(`${teamOf(tenant)}/members/${removed.id}/remove`, {
      _csrf: csrfOf(page),
    });
    assert.equal(done.headers.location, `${teamOf(tenant)}?done=removed`);
    assert.equal(await roleOf(tenant, removed.id), undefined);
  }
  const signedOut = await staffBrowser.get(`/dashboard/restaurants/${tenant.restaurantId}`);
  assert.equal(signedOut.statusCode, 303);
  assert.equal(signedOut.headers.location, '/dashboard/sign-in');
  assert.equal((await elsewhereBrowser.get(`/dashboard/restaurants/${tenant.restaurantId}`)).statusCode, 404);
  assert.equal(
    (await elsewhereBrowser.get(`/dashboard/restaurants/${otherTenant.restaurantId}`)).statusCode,
    200,
  );
});

test('staff get 404 on the team page and its forms; another restaurant’s ids are 404; forms need their CSRF token', async () => {
  const { tenant, owner, browser } = await ownedTenant();
  const other = await ownedTenant();
  const staff = await member(tenant, 'staff');
  const staffBrowser = await signedIn(staff.email);
  const overview = await staffBrowser.get(`/dashboard/restaurants/${tenant.restaurantId}`);
  assert.doesNotMatch(overview.body, /href="[^"]*\/team"/);
  const csrf = csrfOf(overview);
  assert.equal((await staffBrowser.get(teamOf(tenant))).statusCode, 404);
  for (const path of ['/invitations', `/members/${owner.id}/role`, `/members/${owner.id}/remove`]) {
    const res = await staffBrowser.post(`${teamOf(tenant)}${path}`, {
      _csrf: csrf,
      email: fresh(),
      role: 'owner',
    });
    assert.equal(res.statusCode, 404, path);
  }
  assert.equal((await staffBrowser.get(`${teamOf(tenant)}/members/${owner.id}/remove`)).statusCode, 404);
  assert.equal(await roleOf(tenant, owner.id), 'owner');
  assert.equal(await roleOf(tenant, staff.id), 'staff');

  await invite(other.browser, other.tenant, fresh());
  const foreignInvitation = (
    await t.ctx.db
      .selectFrom('invitations')
      .select('id')
      .where('tenant_id', '=', other.tenant.restaurantId)
      .executeTakeFirstOrThrow()
  ).id;
  for (const path of [
    `/members/${other.owner.id}/role`,
    `/invitations/${foreignInvitation}/withdraw`,
    '/members/nope/role',
  ]) {
    const res = await postForm(browser, tenant, path, { role: 'staff' });
    assert.equal(res.statusCode, 404, path);
    assert.equal(h1Of(res), 'Member not found');
  }
  assert.equal((await browser.get(`${teamOf(tenant)}/members/${other.owner.id}/remove`)).statusCode, 404);
  assert.equal(await roleOf(other.tenant, other.owner.id), 'owner');
  assert.ok(
    await t.ctx.db
      .selectFrom('invitations')
      .select('id')
      .where('id', '=', foreignInvitation)
      .executeTakeFirst(),
  );

  const forged = await browser.post(`${teamOf(tenant)}/invitations`, {
    _csrf: 'forged',
    email: fresh(),
    role: 'owner',
  });
  assert.equal(forged.statusCode, 403);
  const page = await browser.get(teamOf(tenant));
  const fromElsewhere = await browser.post(
    `${teamOf(tenant)}/invitations`,
    { _csrf: csrfOf(page), email: fresh(), role: 'owner' },
    { origin: 'https://evil.example' },
  );
  assert.equal(fromElsewhere.statusCode, 403);
  assert.equal(
    (
      await t.ctx.db
        .selectFrom('invitations')
        .select('id')
        .where('tenant_id', '=', tenant.restaurantId)
        .execute()
    ).length,
    0,
  );
});

test('a restaurant sends at most 20 invitations a day', async () => {
  const { tenant, browser } = await ownedTenant();
  const page = await browser.get(teamOf(tenant));
  for (let sent = 0; sent < 20; sent += 1) {
    const res = await browser.post(`${teamOf(tenant)}/invitations`, {
      _csrf: csrfOf(page),
      email: fresh(),
      role: 'staff',
    });
    assert.equal(res.statusCode, 303);
  }
  const refused = await browser.post(`${teamOf(tenant)}/invitations`, {
    _csrf: csrfOf(page),
    email: fresh(),
    role: 'staff',
  });
  assert.equal(refused.statusCode, 429);
  assert.match(refused.body, /id="email-error">This restaurant has sent 20 invitations today/);
  assert.ok(Number(refused.headers['retry-after']) > 0);
});
