import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../harness.ts';

/*
 * Unknown addresses over HTTP: a browser (Accept prefers HTML) gets the site's not-found page on
 * the site's addresses, in its language, with a link back into the part of the site it was in and
 * the pages' headers; a page address with a method it does not take is a 405 page with `Allow`.
 * API clients keep the API's JSON errors: under /v1 and the other API paths whatever they accept,
 * and everywhere when they do not prefer HTML. The site's icon is served, also at /favicon.ico.
 */
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** What Chromium sends when it opens an address. */
const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';

const open = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' | 'HEAD' = 'GET') =>
  t.app.inject({ method, url, headers: { accept: browserAccept, ...headers } });

const pageCsp =
  "default-src 'none'; style-src 'self'; img-src 'self' https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The answer is a page of the site: HTML in the layout, with the pages' headers. */
function assertSitePage(answer: LightMyRequestResponse, status: number): void {
  assert.equal(answer.statusCode, status);
  assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(answer.headers['content-security-policy'], pageCsp);
  assert.equal(answer.headers['cache-control'], 'no-store');
  assert.equal(answer.headers['x-frame-options'], 'DENY');
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  assert.equal(answer.headers['referrer-policy'], 'same-origin');
  assert.match(answer.body, /<link rel="stylesheet" href="\/assets\/[0-9a-f]{12}\/site\.css">/);
  assert.match(answer.body, /<a class="skip-link" href="#main">/);
  assert.match(answer.body, /<main id="main">/);
}

/** The API's JSON not-found error, exactly as the spec's error shape has it. */
function assertJsonNotFound(answer: LightMyRequestResponse, path: string, method = 'GET'): void {
  assert.equal(answer.statusCode, 404);
  assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(answer.headers['cache-control'], 'no-store');
  assert.equal(answer.headers['content-security-policy'], undefined);
  assert.deepEqual(answer.json(), {
    error: {
      code: 'not_found',
      message: `Nothing is at ${method} ${path}.`,
      request_id: answer.headers['x-request-id'],
    },
  });
}

test('a browser gets the site’s not-found page, with a link back into the part of the site it was in', async () => {
  const cases: [string, string, string][] = [
    ['/no-such-page', '/', 'Go to Servery’s front page'],
    ['/no/such/page?x=1', '/', 'Go to Servery’s front page'],
    ['/dashboard/nope', '/dashboard', 'Go to the restaurant dashboard'],
    ['/dashboard/restaurants/0/nope', '/dashboard', 'Go to the restaurant dashboard'],
    ['/console/nope', '/console', 'Go to the developer console'],
    ['/s/unknown-slug/whatever', '/s/unknown-slug', 'Go to the restaurant’s menu'],
  ];
  for (const [url, href, text] of cases) {
    const answer = await open(url);
    assertSitePage(answer, 404);
    assert.match(answer.body, /<title>Page not found · Servery<\/title>/, url);
    assert.match(answer.body, /<h1>Page not found<\/h1>/);
    assert.ok(answer.body.includes('<p>If you typed the web address, check it is correct.</p>'));
    assert.ok(answer.body.includes(`<p><a href="${href}">${text}</a></p>`), `${url}: ${text}`);
  }
  // The console's and the dashboard's pages carry their surface's header; the others the site's.
  const dashboard = await open('/dashboard/nope');
  assert.ok(dashboard.body.includes('<a class="brand" href="/dashboard">Servery</a>'));
  assert.ok(dashboard.body.includes('<span class="surface">Restaurant dashboard</span>'));
  const console = await open('/console/nope');
  assert.ok(console.body.includes('<span class="surface">Developer console</span>'));
  assert.ok((await open('/no-such-page')).body.includes('<span class="brand">Servery</span>'));

  // On a restaurant's own host (<slug>.{storefront domain}), the menu is at its root.
  const ownHost = await open('/whatever', { host: 'trattoria.servery.test' });
  assertSitePage(ownHost, 404);
  assert.ok(ownHost.body.includes('<p><a href="/">Go to the restaurant’s menu</a></p>'));
  assert.doesNotMatch(ownHost.body, /href="\/s\//, 'no link to the rewritten address');

  // A form sent to an unknown address, and HEAD, get it too.
  assertSitePage(await open('/no-such-page', {}, 'POST'), 404);
  const head = await open('/no-such-page', {}, 'HEAD');
  assert.equal(head.statusCode, 404);
  assert.equal(head.headers['content-type'], 'text/html; charset=utf-8');
});

test('the not-found page is in the visitor’s language: ?lang=, the language cookie, Accept-Language', async () => {
  const titles = {
    en: 'Page not found',
    de: 'Seite nicht gefunden',
    fr: 'Page introuvable',
    es: 'Página no encontrada',
    it: 'Pagina non trovata',
  };
  for (const [lang, title] of Object.entries(titles)) {
    const answer = await open(`/no-such-page?lang=${lang}`);
    assertSitePage(answer, 404);
    assert.match(answer.body, new RegExp(`<html lang="${lang}">`));
    assert.ok(answer.body.includes(`<h1>${title}</h1>`), lang);
  }

  const german = await open('/dashboard/nope', { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });
  assert.match(german.body, /<html lang="de">/);
  assert.ok(german.body.includes('<h1>Seite nicht gefunden</h1>'));
  assert.ok(
    german.body.includes('<p>Wenn Sie die Adresse eingetippt haben, prüfen Sie, ob sie richtig ist.</p>'),
  );
  assert.ok(german.body.includes('<p><a href="/dashboard">Zum Restaurant-Dashboard</a></p>'));
  assert.ok(german.body.includes('<span class="surface">Restaurant-Dashboard</span>'));
  // The footer's links show the same address in each language.
  assert.ok(german.body.includes('<a href="/dashboard/nope?lang=fr" hreflang="fr" lang="fr">Français</a>'));

  // The language chosen earlier (the footer's cookie) comes before the browser's.
  const cookie = await open('/console/nope', { cookie: 'other=1; servery_lang=it', 'accept-language': 'de' });
  assert.ok(cookie.body.includes('<p><a href="/console">Vai alla console per sviluppatori</a></p>'));
  // An unknown language: English.
  const unknown = await open('/no-such-page', { 'accept-language': 'nl', cookie: 'servery_lang=xx' });
  assert.match(unknown.body, /<html lang="en">/);
});

test('API clients keep the JSON not_found error: under /v1 and the API paths always, elsewhere unless they prefer HTML', async () => {
  // API paths, even in a browser.
  for (const path of [
    '/v1/nope',
    '/v1',
    '/oauth/nope',
    '/.well-known/nope',
    '/console/api/nope',
    '/dashboard/api/nope',
    '/s/unknown-slug/api/nope',
  ]) {
    assertJsonNotFound(await open(path), path);
  }
  assertJsonNotFound(await open('/v1/nope', {}, 'POST'), '/v1/nope', 'POST');
  // Clients that do not prefer HTML, on the site's addresses.
  for (const accept of ['application/json', '*/*', 'application/json, text/html;q=0.5']) {
    assertJsonNotFound(await open('/nope', { accept }), '/nope');
    assertJsonNotFound(await open('/dashboard/nope', { accept }), '/dashboard/nope');
  }
  const noAccept = await t.app.inject({ method: 'GET', url: '/nope' });
  assertJsonNotFound(noAccept, '/nope');
});

test('a page address with a method it does not take: a 405 page for a browser, the JSON error for API clients', async () => {
  // Sign-out takes only a form's POST.
  const page = await open('/console/sign-out');
  assertSitePage(page, 405);
  assert.equal(page.headers.allow, 'POST');
  assert.ok(page.body.includes('<h1>This page cannot be opened like this</h1>'));
  assert.ok(page.body.includes('<p><a href="/console">Go to the developer console</a></p>'));
  const german = await open('/dashboard/sign-out?lang=de');
  assertSitePage(german, 405);
  assert.ok(german.body.includes('<h1>Diese Seite lässt sich so nicht öffnen</h1>'));

  const json = await open('/console/sign-out', { accept: 'application/json' });
  assert.equal(json.statusCode, 405);
  assert.equal(json.headers.allow, 'POST');
  assert.equal(json.json().error.code, 'method_not_allowed');
  // The OAuth endpoints stay JSON for everyone.
  const token = await open('/oauth/token');
  assert.equal(token.statusCode, 405);
  assert.equal(token.headers.allow, 'POST');
  assert.equal(token.headers['cache-control'], 'no-store');
  assert.deepEqual(token.json(), {
    error: {
      code: 'method_not_allowed',
      message: 'GET is not allowed on /oauth/token.',
      request_id: token.headers['x-request-id'],
    },
  });
});

test('the site’s icon: linked from every page, served as an immutable asset, and at /favicon.ico', async () => {
  const home = await open('/');
  const icon = /<link rel="icon" href="(\/assets\/[0-9a-f]{12}\/favicon\.svg)" type="image\/svg\+xml">/.exec(
    home.body,
  )?.[1];
  assert.ok(icon, 'the layout links the icon');
  assert.ok((await open('/no-such-page')).body.includes(`<link rel="icon" href="${icon}"`));
  assert.ok((await open('/docs')).body.includes(`<link rel="icon" href="${icon}"`));

  const svg = await t.app.inject({ method: 'GET', url: icon, headers: { accept: 'image/*' } });
  assert.equal(svg.statusCode, 200);
  assert.equal(svg.headers['content-type'], 'image/svg+xml');
  assert.match(svg.headers['cache-control'] as string, /max-age=31536000.*immutable/);
  assert.equal(svg.headers['x-content-type-options'], 'nosniff');
  assert.match(svg.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);

  const favicon = await t.app.inject({ method: 'GET', url: '/favicon.ico', headers: { accept: 'image/*' } });
  assert.equal(favicon.statusCode, 302);
  assert.equal(favicon.headers.location, icon);
  assert.equal(favicon.headers['cache-control'], 'public, max-age=86400');
});
