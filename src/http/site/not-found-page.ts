import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { ApiError } from '../../domain/shared/errors.ts';
import { pickLocale } from '../../i18n/i18n.ts';
import { byRestaurantHost } from '../storefront/storefront-host.ts';
import { languageCookie, languageLinks } from '../web/locale.ts';
import { formField, type PageView, pageHeaders, pageView, renderPage, sendPage } from '../web/page.ts';

/*
 * Addresses that are not pages: the APIs and protocols (/v1, OAuth, the console's, dashboard's and
 * storefronts' JSON APIs, metadata, health, webhooks of payment providers) and files. An unknown
 * address there is always the API's JSON error, whatever the client accepts.
 */
const notPages =
  /^\/(?:v1|api|oauth|\.well-known|health|payments|images|assets|console\/api|dashboard\/api|s\/[^/]+\/api)(?:\/|$)/;

const headers = pageHeaders({ formActionSelf: true, referrer: 'same-origin' });

/** A browser asks for a page: its Accept prefers HTML to JSON (no Accept, or `*` alone: JSON). */
function prefersHtml(request: FastifyRequest): boolean {
  return new Negotiator(request).mediaType(['application/json', 'text/html']) === 'text/html';
}

const languageInCookies = new RegExp(`(?:^|;)\\s*${languageCookie}=([a-z]{2})\\s*(?:;|$)`);

/*
 * The language of the page, as localeOf finds it for the other pages: `?lang=` (the footer's
 * links), then the language cookie, then the browser's. (The cookie is read from the header here:
 * the not-found answer is outside the pages' plugins, which parse cookies.)
 */
function localeOfUnknownPage(request: FastifyRequest) {
  const cookie =
    request.cookies?.[languageCookie] ?? languageInCookies.exec(request.headers.cookie ?? '')?.[1];
  return pickLocale([formField(request.query, 'lang'), cookie], request.headers['accept-language']);
}

/** Where the page sends the visitor on: the part of the site the address was in, else the front page. */
function wayOn(request: FastifyRequest, path: string, view: (namespace?: string) => PageView) {
  const surface = /^\/(console|dashboard)(?:\/|$)/.exec(path)?.[1];
  if (surface) {
    const home = `/${surface}`;
    const surfaceView = view(surface);
    return {
      view: { ...surfaceView, surface: { name: surfaceView.t('name'), home } },
      link: { href: home, text: surfaceView.t(`notFound.${surface}`) },
    };
  }
  const slug = /^\/s\/([^/]+)\//.exec(path)?.[1];
  if (slug) {
    const menu = byRestaurantHost(request) ? '/' : `/s/${slug}`;
    const plain = view();
    return { view: plain, link: { href: menu, text: plain.t('notFound.menu') } };
  }
  const plain = view();
  return { view: plain, link: { href: '/', text: plain.t('notFound.frontPage') } };
}

/**
 * The site's page for an address it does not have (404), or a page address asked with a method it
 * does not take (405, with its `Allow`), for a browser: the site's layout in the visitor's
 * language, with a link back into the part of the site the address was in (the console, the
 * dashboard, a restaurant's menu, else the front page), never cached. Null for anything else (an
 * API address, or a client that does not prefer HTML): it gets the API's JSON error.
 */
export function unknownPage(
  request: FastifyRequest,
  reply: FastifyReply,
  error: ApiError,
): FastifyReply | null {
  const path = request.url.split('?')[0] ?? '/';
  if (notPages.test(path) || !prefersHtml(request)) return null;
  const locale = localeOfUnknownPage(request);
  // The footer's links name the address asked for: not where a restaurant's own host was rewritten to.
  const languages = byRestaurantHost(request) ? undefined : languageLinks(request, locale);
  const { view, link } = wayOn(request, path, (surface) =>
    pageView(locale, surface ? ['site', surface] : 'site', { languages }),
  );
  const wrongMethod = error.code === 'method_not_allowed';
  const title = view.t(wrongMethod ? 'notFound.wrongMethodTitle' : 'notFound.title');
  const paragraphs = wrongMethod
    ? [view.t('notFound.wrongMethod')]
    : [view.t('notFound.typed'), view.t('notFound.pasted'), view.t('notFound.followed')];
  return sendPage(
    reply.headers(error.headers).headers(headers),
    error.status,
    renderPage('site/not-found', view, { title, paragraphs, link }),
  );
}
