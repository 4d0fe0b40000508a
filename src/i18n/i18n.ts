import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import i18next, { type Resource, type TFunction } from 'i18next';
import Negotiator from 'negotiator';

/** The languages of every page and e-mail; the first is the fallback. */
export const locales = ['en', 'de', 'fr', 'es', 'it'] as const;
export type Locale = (typeof locales)[number];
export const defaultLocale: Locale = 'en';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (locales as readonly string[]).includes(value);
}

/*
 * The catalogs: src/i18n/<locale>/<namespace>.json (a namespace per surface or purpose: `pages`,
 * `consent`, `email`, …), read once at start. Keys missing in a language fall back to English.
 */
function readCatalogs(): Resource {
  const resources: Resource = {};
  for (const locale of locales) {
    const dir = join(import.meta.dirname, locale);
    resources[locale] = Object.fromEntries(
      readdirSync(dir)
        .filter((file) => file.endsWith('.json'))
        .map((file) => [basename(file, '.json'), JSON.parse(readFileSync(join(dir, file), 'utf8'))]),
    );
  }
  return resources;
}

const instance = i18next.createInstance();
// With initAsync false and the catalogs at hand the instance is ready when init returns; no
// top-level await, so that a module importing this one can also be loaded by require().
void instance.init({
  resources: readCatalogs(),
  supportedLngs: [...locales],
  fallbackLng: defaultLocale,
  initAsync: false,
  // Pages escape what they insert themselves (the template engine); e-mails are plain text.
  interpolation: { escapeValue: false },
  returnNull: false,
});

/**
 * The translations of one language and namespace: `t('key', { name })`. With several namespaces a
 * key is looked up in each in turn (a page's own, then the shared `pages`).
 */
export function translator(locale: Locale, namespace: string | readonly string[]): TFunction {
  return instance.getFixedT(locale, typeof namespace === 'string' ? namespace : [...namespace]);
}

/**
 * The language to answer in: the first of `preferred` (e.g. OAuth `ui_locales`, space-separated
 * BCP 47 tags, or a restaurant's or account's language) that we have, by its primary subtag; else
 * the best match of the browser's Accept-Language; else English.
 */
export function pickLocale(
  preferred: readonly (string | null | undefined)[],
  acceptLanguage?: string,
): Locale {
  for (const tag of preferred.flatMap((value) => value?.split(/\s+/) ?? [])) {
    const primary = tag.split('-')[0]?.toLowerCase();
    if (isLocale(primary)) return primary;
  }
  if (acceptLanguage) {
    const languages = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages();
    for (const tag of languages) {
      const primary = tag.split('-')[0]?.toLowerCase();
      if (isLocale(primary)) return primary;
    }
  }
  return defaultLocale;
}
