import { type PageView, renderPage } from '../../web/page.ts';

/**
 * The page shown instead of a redirect: the request cannot be answered at its redirect URI.
 * `message` is in the page's language, or (`messageLang: 'en'`) an OAuth error's description,
 * written in English for the app's makers.
 */
export function errorPage(
  view: PageView,
  message: string,
  options: { messageLang?: 'en'; retry?: { href: string; text: string } } = {},
): string {
  return renderPage('oauth/pages/error', view, {
    message,
    messageLang: options.messageLang === view.locale ? undefined : options.messageLang,
    retry: options.retry,
  });
}
