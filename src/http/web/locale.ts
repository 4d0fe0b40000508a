import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLocale, type Locale, locales, pickLocale, translator } from '../../i18n/i18n.ts';
import { formField } from './page.ts';

/** The language a person chose with the footer's links, for every page (path `/`). */
export const languageCookie = 'servery_lang';
const oneYear = 365 * 24 * 60 * 60;

/*
 * The language of a page, the first we have of:
 * - the form's `lang` (the language of the page the form was on, so an answer to a post stays in it);
 * - `preferred` (the consent page's `ui_locales`);
 * - `?lang=` (the footer's links) and then the language cookie they set;
 * - the browser's Accept-Language; else English.
 */
export function localeOf(request: FastifyRequest, preferred: readonly (string | undefined)[] = []): Locale {
  return pickLocale(
    [
      formField(request.body, 'lang'),
      ...preferred,
      formField(request.query, 'lang'),
      request.cookies?.[languageCookie],
    ],
    request.headers['accept-language'],
  );
}

/** Keeps the language of a page opened with `?lang=` (a footer link) for the next pages. */
export function rememberLanguage(request: FastifyRequest, reply: FastifyReply, secure: boolean): void {
  const chosen = formField(request.query, 'lang');
  if (request.method !== 'GET' || !isLocale(chosen) || request.cookies?.[languageCookie] === chosen) return;
  reply.setCookie(languageCookie, chosen, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: oneYear,
  });
}

export interface LanguageLink {
  locale: Locale;
  /** The language's name in itself (Deutsch, Français, …). */
  name: string;
  href: string;
  current: boolean;
}

/** The footer's language links: the same page in each language. */
export function languageLinks(request: FastifyRequest, current: Locale): LanguageLink[] {
  const path = request.url.split('?')[0] ?? '/';
  return locales.map((locale) => ({
    locale,
    name: translator(locale, 'pages')('languageName'),
    href: `${path}?lang=${locale}`,
    current: locale === current,
  }));
}
