import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scopes } from '../../src/domain/shared/scopes.ts';
import { locales } from '../../src/i18n/i18n.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import {
  authorizeQuery,
  Browser,
  csrfOf,
  makeAccount,
  makeApp,
  makeRestaurant,
  signIn,
} from '../oauth/consent-helpers.ts';
import { pkce } from '../oauth/oauth-helpers.ts';

const catalogs = path.resolve(import.meta.dirname, '../../src/i18n');

/** Every key of a catalog, nested keys joined with dots. */
function keysOf(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, item]) => keysOf(item, prefix ? `${prefix}.${key}` : key));
}

describe('the catalogs', () => {
  const namespaces = readdirSync(path.join(catalogs, 'en')).filter((file) => file.endsWith('.json'));

  for (const file of namespaces) {
    test(`${file}: every language has every key of English, and no other`, () => {
      const english = keysOf(JSON.parse(readFileSync(path.join(catalogs, 'en', file), 'utf8'))).sort();
      for (const locale of locales) {
        const catalog = JSON.parse(readFileSync(path.join(catalogs, locale, file), 'utf8'));
        assert.deepEqual(keysOf(catalog).sort(), english, `${locale}/${file}`);
        for (const key of keysOf(catalog)) {
          const text = key.split('.').reduce((node, part) => node[part], catalog);
          assert.ok(typeof text === 'string' && text.trim() !== '', `${locale}/${file}: ${key} is empty`);
        }
      }
    });
  }

  test('the consent page describes every scope in every language', () => {
    for (const locale of locales) {
      const consent = JSON.parse(readFileSync(path.join(catalogs, locale, 'consent.json'), 'utf8'));
      assert.deepEqual(Object.keys(consent.scopes).sort(), [...scopes].sort(), locale);
    }
  });
});

describe('the consent page’s language', () => {
  let t: TestApp;
  let clientId: string;
  before(async () => {
    t = await buildTestApp();
    const developer = await makeAccount(t.ctx, { developer: true });
    ({ clientId } = await makeApp(t.ctx, developer.id, {
      name: 'Kasse',
      redirectUris: ['https://app.example.test/cb'],
    }));
  });
  after(async () => {
    await t?.close();
  });

  const query = (extra: Record<string, string> = {}) =>
    authorizeQuery({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://app.example.test/cb',
      state: 'xyz',
      scope: 'orders:read menu:read',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      ...extra,
    });

  const cases: [string, Record<string, string>, Record<string, string>, string, RegExp][] = [
    ['ui_locales=de', { ui_locales: 'de' }, {}, 'de', /Anmelden, um Kasse zu verbinden/],
    [
      'ui_locales=de-AT beats Accept-Language',
      { ui_locales: 'de-AT' },
      { 'accept-language': 'fr' },
      'de',
      /Passwort/,
    ],
    [
      'ui_locales="xx fr": the first we have',
      { ui_locales: 'xx fr' },
      {},
      'fr',
      /Connectez-vous pour associer Kasse/,
    ],
    [
      'Accept-Language it',
      {},
      { 'accept-language': 'it-IT,it;q=0.9,en;q=0.5' },
      'it',
      /Accedi per collegare Kasse/,
    ],
    ['ui_locales=es', { ui_locales: 'es' }, {}, 'es', /Inicia sesión para conectar Kasse/],
    [
      'an unknown language: English',
      { ui_locales: 'xx' },
      { 'accept-language': 'pt-BR' },
      'en',
      /Sign in to connect Kasse/,
    ],
  ];
  for (const [name, params, headers, lang, text] of cases) {
    test(name, async () => {
      const res = await t.app.inject({ url: `/oauth/authorize?${query(params)}`, headers });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, new RegExp(`<html lang="${lang}">`));
      assert.match(res.body, text);
    });
  }

  test('the language is kept across the forms: errors, the consent page and its scopes in German', async () => {
    const owner = await makeAccount(t.ctx);
    await makeRestaurant(t.ctx, [owner.id]);
    const browser = new Browser(t.app);
    const german = query({ ui_locales: 'de' });
    const form = await browser.get(`/oauth/authorize?${german}`);
    const wrong = await browser.post(`/oauth/authorize/sign-in?${german}`, {
      _csrf: csrfOf(form),
      lang: 'de',
      email: owner.email,
      password: 'falsch!',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /<html lang="de">/);
    assert.match(wrong.body, /Die E-Mail-Adresse oder das Passwort stimmt nicht\./);

    assert.equal((await signIn(browser, german, owner.email)).statusCode, 303);
    const consent = await browser.get(`/oauth/authorize?${german}`);
    assert.match(consent.body, /<html lang="de">/);
    assert.match(consent.body, /Kasse mit Ihrem Restaurant verbinden/);
    assert.ok(consent.body.includes('<li>Ihre Bestellungen sehen</li>'));
    assert.ok(consent.body.includes('<li>Ihre Speisekarte sehen</li>'));
    assert.match(consent.body, /Verbinden<\/button>/);

    const expired = await browser.post(`/oauth/authorize/consent?${german}`, { decision: 'connect' });
    assert.equal(expired.statusCode, 403);
    assert.match(expired.body, /Dieses Formular ist abgelaufen/);
  });

  test('an error page for the app’s makers: the frame in the page’s language, the detail in English', async () => {
    const res = await t.app.inject({ url: `/oauth/authorize?client_id=svc_app_nobody&ui_locales=fr` });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /<html lang="fr">/);
    assert.match(res.body, /L’association ne peut pas continuer/);
    assert.match(res.body, /<p role="alert" lang="en">No app is registered with this client_id\.<\/p>/);
  });
});
