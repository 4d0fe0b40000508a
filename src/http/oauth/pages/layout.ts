import { type Html, html } from './html.ts';

const style = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f4f2; color: #1d1d1b; }
  main { max-width: 30rem; margin: 2rem auto; padding: 1.5rem 2rem; background: #fff; border-radius: 8px; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  h2 { font-size: 1.1rem; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input[type=email], input[type=password], input[type=text] { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
  fieldset { border: 1px solid #ccc; border-radius: 4px; margin: 1rem 0; }
  fieldset label { font-weight: normal; margin-top: .25rem; }
  button { font: inherit; padding: .5rem 1.2rem; margin: 1rem .5rem 0 0; border-radius: 4px; border: 1px solid #1d1d1b; background: #fff; cursor: pointer; }
  button.primary { background: #1d5c3a; border-color: #1d5c3a; color: #fff; }
  button.link { border: 0; padding: 0; margin: 0; background: none; color: #1d4f91; text-decoration: underline; }
  .alert { padding: .75rem 1rem; border-radius: 4px; background: #fdecea; color: #8a1c12; }
  .note { padding: .75rem 1rem; border-radius: 4px; background: #fff7e0; }
  .app { display: flex; gap: 1rem; align-items: center; }
  .app img { width: 48px; height: 48px; object-fit: contain; }
  form.inline { display: inline; }
`;

/** A whole page: plain HTML, one column, no script. */
export function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Servery</title>
<style>${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.text;
}

export interface AppSummary {
  name: string;
  logoUrl: string | null;
  website: string | null;
}

/** The app asking for access: logo, name and website. */
export function appSummary(app: AppSummary): Html {
  return html`<div class="app">
${app.logoUrl && html`<img src="${app.logoUrl}" alt="">`}
<p><strong>${app.name}</strong>${app.website && html`<br><a href="${app.website}" rel="noopener noreferrer" target="_blank">${displayUrl(app.website)}</a>`}</p>
</div>`;
}

function displayUrl(url: string): string {
  return url.replace(/^https:\/\//, '').replace(/\/$/, '');
}

/** An error or notice above a form, announced by screen readers. */
export function alert(message: string | null | undefined): Html {
  return html`${message && html`<p class="alert" role="alert">${message}</p>`}`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}
