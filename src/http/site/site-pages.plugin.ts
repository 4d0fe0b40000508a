import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { assetUrl } from '../web/assets.ts';
import { languageLinks, localeOf, rememberLanguage } from '../web/locale.ts';
import { pageHeaders, pageView, renderPage, sendPage } from '../web/page.ts';

const require = createRequire(import.meta.url);

/*
 * The API reference's viewer: Redoc's standalone bundle (React and all it needs in one file), served
 * from our own host under its version, so a page never loads anything from elsewhere and a new
 * version gets a new address (cached for a year as immutable).
 */
const redoc = {
  file: require.resolve('redoc/bundles/redoc.standalone.js'),
  path: `/docs/redoc-${(require('redoc/package.json') as { version: string }).version}.js`,
};

const homeHeaders = pageHeaders({ formActionSelf: true, referrer: 'same-origin' });

/*
 * The API reference's headers: the scripted page of the site. Scripts, the document (fetched by the
 * viewer), styles and fonts from our own origin only. Redoc writes its styles into <style> elements
 * (styled-components), hence 'unsafe-inline' for styles, and starts its search index in a worker
 * made from a blob of its own bundle (`worker-src blob:`); its icons are data: images. Its side
 * menu always shows Redocly's logo from their CDN: img-src refuses it and the image hides itself.
 */
const docsHeaders = {
  ...homeHeaders,
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "font-src 'self'; connect-src 'self'; worker-src blob:; form-action 'self'; frame-ancestors 'none'; " +
    "base-uri 'none'",
};

export interface SitePagesOptions {
  /** `appUrl` (default `baseUrl`): when https, the language cookie is Secure. */
  config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'appUrl'>>;
}

/**
 * The site's own pages: the front page (`/`: what Servery is, links to the console, the dashboard,
 * the API reference and the OpenAPI document), in the visitor's language with the footer's language
 * links; and the API reference (`/docs`), the served OpenAPI document (`/v1/openapi.json`) shown
 * by Redoc.
 */
export async function sitePagesPlugin(app: FastifyInstance, options: SitePagesOptions): Promise<void> {
  const secure = new URL(options.config.appUrl ?? options.config.baseUrl).protocol === 'https:';
  await app.register(fastifyCookie);

  app.get('/', async (request, reply) => {
    rememberLanguage(request, reply, secure);
    const locale = localeOf(request);
    const view = pageView(locale, 'site', { languages: languageLinks(request, locale) });
    return sendPage(reply.headers(homeHeaders), 200, renderPage('site/home', view));
  });

  app.get('/docs', async (request, reply) => {
    rememberLanguage(request, reply, secure);
    const view = pageView(localeOf(request), 'site');
    return sendPage(
      reply.headers(docsHeaders),
      200,
      renderPage('site/docs', view, {
        stylesheet: assetUrl('docs.css'),
        viewer: redoc.path,
        openApi: '/v1/openapi.json',
      }),
    );
  });

  app.get(redoc.path, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(createReadStream(redoc.file)),
  );
}
