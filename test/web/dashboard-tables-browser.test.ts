import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pagesInChromium, printScreenshot, screenshot } from '../browser.ts';
import { newAccount, password } from '../harness.ts';
import { makeRestaurant } from '../oauth/consent-helpers.ts';

/*
 * The tables and areas pages in headless Chromium, as an owner uses them: add an area and tables,
 * change one, see an error beside its field, make a new QR code, open the codes to print (also as
 * printed: only the cards); in English, on a phone, and in German. Screenshots under
 * test-results/dashboard-tables-*.png.
 */
const pages = pagesInChromium();

test('an owner sets up the floor: area, tables, an error, a new QR code, the codes to print', async () => {
  const owner = await newAccount(pages.t, false);
  const restaurant = await makeRestaurant(pages.t.ctx, [owner.id]);
  const page = await pages.browser.newPage();
  await page.goto(`${pages.serviceUrl}/dashboard/sign-in`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your restaurants' }).waitFor();
  await page.getByRole('link', { name: restaurant.name }).click();
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Tables' })
    .click();
  await page.getByRole('heading', { name: 'Tables and areas', level: 1 }).waitFor();

  await page.getByRole('link', { name: 'Add an area' }).click();
  await page.getByLabel('Name').fill('Terrace');
  await page.getByLabel('Bookable online').uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The area was added.').waitFor();
  assert.ok(await page.getByText('Not bookable online').isVisible());

  await page.getByRole('link', { name: 'Add a table here Terrace' }).click();
  await page.getByRole('heading', { name: 'Add a table' }).waitFor();
  assert.equal(await page.getByLabel('Area').locator('option:checked').textContent(), 'Terrace');
  await page.getByLabel('Name').fill('T1');
  await page.getByLabel('Seats (optional)').fill('4');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The table was added.').waitFor();

  await page.getByRole('link', { name: 'Add a table', exact: true }).click();
  await page.getByLabel('Name').fill('Bar');
  await page.getByLabel('Bookable online').uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The table was added.').waitFor();
  const t1 = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'T1' }) });
  assert.deepEqual((await t1.getByRole('cell').allTextContents()).slice(0, 3), ['4', '–', 'Yes']);
  assert.ok(await t1.getByRole('link', { name: 'Print T1' }).isVisible());
  const bar = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Bar' }) });
  assert.match((await bar.getByRole('cell').first().textContent()) ?? '', /\(default\)/);

  // A minimum party larger than the table: the error beside its field, the input kept.
  await page.getByRole('link', { name: 'T1', exact: true }).click();
  await page.getByRole('heading', { name: 'Edit table T1' }).waitFor();
  await page.getByLabel('Minimum party (optional)').fill('6');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByLabel('Minimum party (optional)').getAttribute('aria-invalid'), 'true');
  assert.match(
    (await page.locator('#min_party-error').textContent()) ?? '',
    /not more than the table's seats/,
  );
  assert.equal(await page.getByLabel('Seats (optional)').inputValue(), '4');
  await screenshot(page, 'dashboard-tables-error');
  await page.getByLabel('Minimum party (optional)').fill('2');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The table was saved.').waitFor();
  assert.deepEqual((await t1.getByRole('cell').allTextContents()).slice(0, 2), ['4', '2']);
  await screenshot(page, 'dashboard-tables');

  // A new QR code, after the warning that the printed one stops working.
  const before = await pages.t.database.db
    .selectFrom('store_tables')
    .select('qr_key')
    .where('label', '=', 'T1')
    .executeTakeFirstOrThrow();
  await t1.getByRole('link', { name: 'New QR code T1' }).click();
  await page.getByRole('heading', { name: 'New QR code for table T1' }).waitFor();
  assert.ok(await page.getByText('stops working at once').isVisible());
  await page.getByRole('button', { name: 'Make a new QR code' }).click();
  await page.getByText('The table has a new QR code.').waitFor();
  const after = await pages.t.database.db
    .selectFrom('store_tables')
    .select('qr_key')
    .where('label', '=', 'T1')
    .executeTakeFirstOrThrow();
  assert.notEqual(after.qr_key, before.qr_key);
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'dashboard-tables-mobile');
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.getByRole('link', { name: 'Print all QR codes' }).click();
  await page.getByRole('heading', { name: 'QR codes to print', level: 1 }).waitFor();
  assert.deepEqual(await page.getByRole('heading', { level: 2 }).allTextContents(), [
    'Table T1',
    'Table Bar',
  ]);
  assert.ok(await page.getByRole('img', { name: 'QR code of table T1' }).locator('svg').isVisible());
  assert.ok(!(await page.content()).includes(after.qr_key));
  await screenshot(page, 'dashboard-tables-qr-codes');
  // As printed: the cards only, none split across pages.
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('.site-header').isVisible(), false);
  assert.equal(await page.locator('.site-footer').isVisible(), false);
  assert.equal(await page.getByRole('heading', { name: 'QR codes to print' }).isVisible(), false);
  assert.equal(
    await page
      .locator('.qr-card')
      .first()
      .evaluate((card) => getComputedStyle(card).breakInside),
    'avoid',
  );
  assert.ok(await page.getByRole('heading', { name: 'Table Bar' }).isVisible());
  await printScreenshot(page, 'dashboard-tables-qr-print');
  await page.emulateMedia({ media: 'screen' });

  await page.getByRole('link', { name: 'Back to the tables' }).click();
  await page.getByRole('link', { name: 'Deutsch' }).click();
  await page.getByRole('heading', { name: 'Tische und Bereiche', level: 1 }).waitFor();
  assert.ok(await page.getByRole('link', { name: 'Alle QR-Codes drucken' }).isVisible());
  assert.ok(await page.getByRole('columnheader', { name: 'Online buchbar' }).first().isVisible());
  await screenshot(page, 'dashboard-tables-de');
  await page.setViewportSize({ width: 375, height: 740 });
  await screenshot(page, 'dashboard-tables-de-mobile');
  await page.close();
});
