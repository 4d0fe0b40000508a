import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { jobs } from '../../src/worker/worker.ts';
import { pagesInChromium, screenshot, signInToDashboard } from '../browser.ts';
import { makeTenant, newAccount, password } from '../harness.ts';
import { mimeParts, type SmtpReceiver, smtpReceiver } from '../worker/smtp-receiver.ts';

/*
 * The Team page in headless Chromium, at 1280 and 390 px: an owner invites someone as staff, the
 * invitee joins by the mailed link with a new account, and the owner removes a member after the
 * confirmation page; axe-checked screenshots of each page under test-results/.
 */
const pages = pagesInChromium();
let smtp: SmtpReceiver;
before(async () => {
  smtp = await smtpReceiver();
});
after(() => smtp?.close());

const queueJob = jobs.find((job) => job.name === 'run queued jobs');

test('an owner invites, the invitee joins, and the owner removes a member', async () => {
  const tenant = await makeTenant(pages.t.ctx);
  const owner = await newAccount(pages.t, false);
  const waiter = await newAccount(pages.t, false);
  await pages.t.ctx.db
    .deleteFrom('restaurant_members')
    .where('tenant_id', '=', tenant.restaurantId)
    .execute();
  await pages.t.ctx.db
    .insertInto('restaurant_members')
    .values([
      { tenant_id: tenant.restaurantId, account_id: owner.id, role: 'owner' },
      { tenant_id: tenant.restaurantId, account_id: waiter.id, role: 'staff' },
    ])
    .execute();
  await pages.t.ctx.db
    .updateTable('accounts')
    .set({ name: 'Wanda Waiter' })
    .where('id', '=', waiter.id)
    .execute();

  const page = await pages.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInToDashboard(pages, page, owner.email);
  await page.goto(`${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}`);
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Team' }).click();
  await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();

  const invitee = `new-cook-${process.pid}@example.test`;
  await page.getByLabel('E-mail address').fill(invitee);
  await page.locator('#role').selectOption('staff');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.getByRole('status').waitFor();
  assert.ok(await page.getByRole('heading', { name: invitee }).isVisible());
  await screenshot(page, 'dashboard-team-1280');
  await page.setViewportSize({ width: 390, height: 800 });
  await screenshot(page, 'dashboard-team-390');

  // The last owner cannot become staff: said beside the field.
  await page.locator(`#role-${owner.id}`).selectOption('staff');
  await page.getByRole('button', { name: `Change role ${owner.email}` }).click();
  await page.getByRole('alert').waitFor();
  assert.ok(await page.locator(`#role-${owner.id}-error`).isVisible());

  await page.getByRole('link', { name: 'Remove Wanda Waiter' }).click();
  await page.getByRole('heading', { name: 'Remove Wanda Waiter from the team?' }).waitFor();
  await screenshot(page, 'dashboard-team-remove-390');
  await page.getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('status').waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Wanda Waiter' }).count(), 0);

  // The invitee's link, from the mail.
  assert.ok(queueJob);
  await queueJob.run(pages.t.database.db, pages.t.clock, {
    log: pino({ level: 'silent' }),
    emailTransport: smtp.transport,
  });
  const mail = smtp.received.find((raw) => raw.includes(invitee));
  const text = mimeParts(mail ?? '').find((part) => part.type === 'text/plain')?.content ?? '';
  const link = new URL(/(http:\/\/\S+\/dashboard\/invitations\/\S+)/.exec(text)?.[1] ?? '');
  await pages.browser.clearCookies();
  await page.goto(`${pages.serviceUrl}${link.pathname}`);
  await page.getByRole('heading', { name: /^Join Restaurant / }).waitFor();
  await screenshot(page, 'dashboard-team-join-390');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByLabel('Your name').fill('Carla Cook');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await page.getByRole('heading', { name: 'Today' }).first().waitFor();
  assert.equal(new URL(page.url()).pathname, `/dashboard/restaurants/${tenant.restaurantId}`);
  await page.close();
});
