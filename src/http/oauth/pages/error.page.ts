import { html } from './html.ts';
import { page } from './layout.ts';

/** The page shown instead of a redirect: the request cannot be answered at its redirect URI. */
export function errorPage(message: string, retry?: { href: string; text: string }): string {
  return page(
    'The connection cannot continue',
    html`<h1>The connection cannot continue</h1>
<p role="alert">${message}</p>
${retry ? html`<p><a href="${retry.href}">${retry.text}</a></p>` : html`<p>You can close this page. If the problem stays, tell the app's makers.</p>`}`,
  );
}
