import type { FastifyReply } from 'fastify';
import type { TFunction } from 'i18next';
import { type Locale, translator } from '../../i18n/i18n.ts';
import { assetUrl } from './assets.ts';
import type { LanguageLink } from './locale.ts';
import { render } from './views.ts';

/** A link of a surface's navigation; without `href` its page is not built yet (shown as text). */
export interface NavItem {
  label: string;
  href?: string;
  current?: boolean;
}

/** An error of a form: beside its field when it has one, and in the summary above the form. */
export interface FormError {
  message: string;
  field?: string;
}

/** What the layout of every page needs; each page's template gets it with the page's own data. */
export interface PageView {
  locale: Locale;
  /** The page's namespaces in turn, then the shared `pages`. */
  t: TFunction;
  stylesheet: string;
  /** The site's icon (the layout's `<link rel="icon">`). */
  icon: string;
  /** The header's second line: the surface's name, linking to its home. */
  surface?: { name: string; home: string };
  /**
   * A restaurant's own pages (its storefront): its name heads the header (the pages' titles carry
   * it), and Servery is named only in the footer; its accent colour's stylesheet, if it has one.
   */
  brand?: { name: string; home: string; stylesheet?: string; logo?: string };
  nav?: NavItem[];
  /** The signed-in account and its sign-out form. */
  account?: { email: string; signOutAction: string; csrfToken: string };
  languages?: LanguageLink[];
}

/** A page's view; `namespaces` are its catalogs (the page's own, then its surface's), before `pages`. */
export function pageView(
  locale: Locale,
  namespaces: string | readonly string[],
  extras: Omit<PageView, 'locale' | 't' | 'stylesheet' | 'icon'> = {},
): PageView {
  const catalogs = [...(typeof namespaces === 'string' ? [namespaces] : namespaces), 'pages'];
  return {
    locale,
    t: translator(locale, catalogs),
    stylesheet: assetUrl('site.css'),
    icon: assetUrl('favicon.svg'),
    ...extras,
  };
}

/** Renders a page's template (`<surface>/pages/<name>`) with the view and the page's data. */
export function renderPage(name: string, view: PageView, data: object = {}): string {
  return render(name, { ...view, ...data });
}

/*
 * Headers of every page answer:
 * - not cached (pages carry CSRF tokens and the signed-in account's data);
 * - never in a frame (clickjacking a button);
 * - no script; the stylesheet from our own origin only; images from it or over https (app logos);
 * - `form-action 'self'` where every form posts to us (not the consent page: browsers apply it to
 *   the redirect after a form, which goes to the app's own address);
 * - no Referer outside our origin (the consent page's query holds the app's state: none at all).
 */
export function pageHeaders(options: { formActionSelf: boolean; referrer: 'no-referrer' | 'same-origin' }) {
  const formAction = options.formActionSelf ? " form-action 'self';" : '';
  return {
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'none'; style-src 'self'; img-src 'self' https:;${formAction} frame-ancestors 'none'; base-uri 'none'`,
    'referrer-policy': options.referrer,
    'x-content-type-options': 'nosniff',
  };
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** A page with one message (an error, a page not found), and a link onwards if there is one. */
export function messagePage(
  view: PageView,
  input: { title: string; message: string; link?: { href: string; text: string } },
): string {
  return renderPage('web/views/message', view, input);
}

/** A field of a submitted form, when it was sent exactly once. */
export function formField(body: unknown, name: string): string | undefined {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
