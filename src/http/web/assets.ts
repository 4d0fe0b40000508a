import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { compressAnswers } from './compression.ts';

const assetsDir = path.join(import.meta.dirname, 'assets');

/*
 * The pages' static files (src/http/web/assets/) under `/assets/<version>/`, where the version is
 * a hash of all of them: a changed file gets a new address, so each can be cached for a year as
 * immutable, and a browser fetches the new one with the next page.
 */
const version = (() => {
  const digest = createHash('sha256');
  for (const name of readdirSync(assetsDir).sort()) {
    digest.update(name).update(readFileSync(path.join(assetsDir, name)));
  }
  return digest.digest('hex').slice(0, 12);
})();

const prefix = `/assets/${version}/`;

/** The address of a static file, e.g. `assetUrl('site.css')`. */
export function assetUrl(name: string): string {
  return `${prefix}${name}`;
}

export async function assetsPlugin(app: FastifyInstance): Promise<void> {
  await compressAnswers(app);
  await app.register(fastifyStatic, {
    root: assetsDir,
    prefix,
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    immutable: true,
    maxAge: '365d',
    setHeaders: (reply) => {
      reply.header('x-content-type-options', 'nosniff');
    },
  });

  /*
   * Browsers ask for /favicon.ico where a page names no icon (the API's JSON, a file): sent on to
   * the site's icon. The icon's address changes with the assets' version, so the redirect is kept
   * for a day only.
   */
  app.get('/favicon.ico', async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').redirect(assetUrl('favicon.svg'), 302),
  );
}
