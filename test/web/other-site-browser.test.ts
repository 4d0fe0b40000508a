import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { pagesInChromium, screenshot } from '../browser.ts';

/*
 * A form of the dashboard and of the console posted from another site, in headless Chromium: a
 * page on another origin (here another port of 127.0.0.1) posts to the service's sign-in forms; the
 * browser sends that site's `Origin`, and the service answers 403 with its page saying so, in the
 * language asked for, before it reads the form, with a link back to the surface. Screenshots test-results/other-site-*.png.
 */
const pages = pagesInChromium();

/** The other site: a page whose only content is a form posting to `action`. */
const otherSite = createServer((request, response) => {
  const action = new URL(request.url ?? '/', 'http://other.test').searchParams.get('action') ?? '';
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(
    `<!doctype html><html lang="en"><title>Another site</title><form method="post" action="${action}">` +
      '<input type="hidden" name="email" value="owner@example.com"><button>Send</button></form></html>',
  );
});
let otherSiteUrl = '';
before(async () => {
  otherSite.listen(0, '127.0.0.1');
  await once(otherSite, 'listening');
  otherSiteUrl = `http://127.0.0.1:${(otherSite.address() as AddressInfo).port}`;
});
after(() => otherSite.close());

for (const { surface, lang, heading, message, again } of [
  {
    surface: 'dashboard',
    lang: 'en',
    heading: 'Something went wrong',
    message: 'This form was not sent from one of our pages.',
    again: 'Start again',
  },
  {
    surface: 'console',
    lang: 'fr',
    heading: 'Une erreur s’est produite',
    message: 'Ce formulaire n’a pas été envoyé depuis l’une de nos pages.',
    again: 'Recommencer',
  },
]) {
  test(`the ${surface}’s sign-in form posted from another site is refused with a page saying so (${lang})`, async () => {
    const page = await pages.browser.newPage();
    const action = `${pages.serviceUrl}/${surface}/sign-in?lang=${lang}`;
    await page.goto(`${otherSiteUrl}/?action=${encodeURIComponent(action)}`);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url() === action),
      page.getByRole('button', { name: 'Send' }).click(),
    ]);
    assert.equal(answer.status(), 403);
    assert.equal(
      answer.request().headers().origin,
      otherSiteUrl,
      'the browser said where the form came from',
    );
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    assert.ok(await page.getByText(message).isVisible());
    await screenshot(page, `other-site-${surface}-${lang}`);
    await page.getByRole('link', { name: again }).click(); // back to the surface, which asks to sign in
    await page.waitForURL(`${pages.serviceUrl}/${surface}/sign-in`);
    await page.close();
  });
}
