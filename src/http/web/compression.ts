import { constants } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/*
 * Pages and their static files go compressed to browsers that ask (Accept-Encoding): brotli at a
 * quality that costs little CPU, else gzip, for answers over 1 KB. Called by the plugins that
 * serve them (the storefront's pages, the assets), so only their routes compress: the APIs' JSON
 * is sent as it is. A storefront's menu page of 200 products: 116 KB of HTML, 7 KB gzipped
 * (docs/performance.md).
 */
export async function compressAnswers(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
}
