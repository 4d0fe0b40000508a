import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { pagesInChromium, screenshot } from '../browser.ts';
import { record } from '../events/events-helpers.ts';
import { makeTenant, password, type Tenant } from '../harness.ts';
import { runJob, startReceiver } from '../webhooks/delivery-helpers.ts';

/*
 * The webhook pages in headless Chromium: a developer sets the app's webhook (an address refused
 * beside its field first), reads its delivery log after a real delivery to a local receiver,
 * sends a test event and resends a delivery; an owner adds a webhook of the restaurant's own and
 * reads its log, in German. Screenshots: test-results/console-webhook*.png, dashboard-webhook*.png.
 */
const pages = pagesInChromium({ config: { webhooksAllowInsecure: true } });
let receiver: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  receiver = await startReceiver();
});
after(() => receiver.close());

async function developerEmail(tenant: Tenant): Promise<string> {
  const row = await pages.t.database.db
    .selectFrom('apps as p')
    .innerJoin('accounts as a', 'a.id', 'p.developer_id')
    .select('a.email')
    .where('p.id', '=', tenant.appId)
    .executeTakeFirstOrThrow();
  return row.email;
}

async function signIn(page: Page, url: string, email: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((address) => !address.pathname.endsWith('/sign-in'));
}

/** A real delivery: an event of the test restaurant, sent by the worker's job to the receiver. */
async function deliverAnEvent(tenant: Tenant): Promise<void> {
  await record(pages.t, tenant, 'order.created', undefined, { livemode: false });
  await runJob(pages.t.database.db, pages.t.clock);
}

test('a developer sets the app’s webhook, reads its log, sends a test event and resends a delivery', async () => {
  const tenant = await makeTenant(pages.t.ctx, { livemode: false });
  const page = await pages.browser.newPage();
  const home = `${pages.serviceUrl}/console/apps/${tenant.clientId}/webhook`;
  await signIn(page, home, await developerEmail(tenant));
  await page.goto(home);
  await page.getByText('This app has no webhook yet.').waitFor();
  assert.equal(
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Apps' })
      .getAttribute('aria-current'),
    'page',
  );

  await page.getByRole('textbox', { name: 'Address' }).fill('https://10.0.0.1/hooks');
  await page.getByLabel('All order events').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(
    (await page.locator('#url-error').textContent()) ?? '',
    /The host 10\.0\.0\.1 is not a public internet address/,
  );
  assert.ok(await page.getByLabel('All order events').isChecked(), 'the selection as sent');

  await page.getByRole('textbox', { name: 'Address' }).fill(`${receiver.base}/ok/browser-console`);
  await page.getByLabel('app.connected').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The webhook was set up.').waitFor();
  await page.getByText('Show the secret').click();
  const [secret, forLibraries] = await page.locator('code.secret').allTextContents();
  assert.match(secret ?? '', /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.match(
    forLibraries ?? '',
    /^whsec_[A-Za-z0-9+/]{43}=$/,
    'the same secret for Standard Webhooks libraries',
  );
  await screenshot(page, 'console-webhook');

  await deliverAnEvent(tenant);
  await page.getByRole('link', { name: 'Open the delivery log' }).click();
  await page.getByRole('heading', { name: 'Delivery log', level: 1 }).waitFor();
  const row = page.getByRole('row').filter({ hasText: 'order.created' });
  assert.ok(await row.getByText('Delivered').isVisible());
  assert.ok(await row.getByRole('cell', { name: '200', exact: true }).isVisible());
  assert.match((await row.getByRole('cell').first().textContent()) ?? '', /UTC$/);

  await page.getByLabel('Event type').selectOption('ping');
  await page.getByRole('button', { name: 'Send the test event' }).click();
  await page.getByText('The test event was sent').waitFor();
  assert.ok(await page.getByRole('row').filter({ hasText: 'ping' }).getByText('Delivered').isVisible());
  assert.equal(receiver.received.at(-1)?.headers['service-event-type'], 'ping');
  await screenshot(page, 'console-webhook-log');

  await page.getByRole('row').filter({ hasText: 'order.created' }).getByRole('link').click();
  await page.getByRole('heading', { name: 'Delivery of order.created' }).waitFor();
  await page.getByRole('button', { name: 'Resend' }).click();
  await page.getByText('The delivery was sent once more').waitFor();
  const attempts = page.getByRole('table', { name: 'Attempts' }).getByRole('row');
  assert.equal(await attempts.count(), 3, 'the header and two attempts');
  await page.getByText('The event as sent').click();
  assert.match((await page.locator('details.envelope pre').textContent()) ?? '', /"type": "order.created"/);
  await screenshot(page, 'console-webhook-delivery');
  await page.close();
});

test('an owner adds a webhook of the restaurant’s own and reads its log, in German', async () => {
  const tenant = await makeTenant(pages.t.ctx, { livemode: false });
  const page = await pages.browser.newPage();
  const list = `${pages.serviceUrl}/dashboard/restaurants/${tenant.restaurantId}/webhooks`;
  await signIn(page, list, await developerEmail(tenant));
  await page.goto(`${list}?lang=de`);
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByText('Dieses Restaurant hat noch keine eigenen Webhooks.').waitFor();
  await page.getByRole('link', { name: 'Webhook hinzufügen' }).click();
  await page.getByRole('heading', { name: 'Webhook hinzufügen' }).waitFor();
  assert.equal(await page.getByLabel('app.connected').count(), 0, 'no app.* events for a restaurant’s own');
  await page.getByLabel('Adresse').fill(`${receiver.base}/ok/browser-dashboard`);
  await page.getByLabel('Alle Bestellereignisse').check();
  await page.getByLabel('Alle Speisekartenereignisse').check();
  await page.getByRole('button', { name: 'Webhook hinzufügen' }).click();
  await page.getByText('Der Webhook wurde eingerichtet.').waitFor();
  assert.ok(await page.getByLabel('Alle Bestellereignisse').isChecked());
  await page.getByRole('button', { name: 'Neuen Schlüssel erstellen' }).click();
  await page.getByText('Ein neuer Signaturschlüssel wurde erstellt.').waitFor();
  assert.ok(await page.getByText(/Bisheriger Schlüssel, signiert bis/).isVisible());
  await screenshot(page, 'dashboard-webhook');

  await page.getByRole('link', { name: 'Zurück zu den Webhooks' }).click();
  const entry = page.getByRole('row').filter({ hasText: 'browser-dashboard' });
  assert.ok(await entry.getByText('Eingeschaltet').isVisible());
  await screenshot(page, 'dashboard-webhooks');

  await deliverAnEvent(tenant);
  await entry.getByRole('link', { name: /Bearbeiten/ }).click();
  await page.getByRole('link', { name: 'Zustellprotokoll öffnen' }).click();
  await page.getByRole('heading', { name: 'Zustellprotokoll', level: 1 }).waitFor();
  const row = page.getByRole('row').filter({ hasText: 'order.created' });
  assert.ok(await row.getByText('Zugestellt').isVisible());
  assert.ok(await page.getByText('Zeiten in Europe/Berlin.').isVisible());
  await screenshot(page, 'dashboard-webhook-log');
  await page.close();
});
