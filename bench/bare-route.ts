/*
 * The server of the HTTP benches: the built app plus one bare route on the same Fastify instance,
 * listening on 127.0.0.1. Same process, same global hooks (request id, onSend headers), same
 * serializer for the same schema: only the route's own work differs.
 */

import { openLimiters } from '../src/adapters/rate-limit-stores.ts';
import { buildApp } from '../src/app.ts';
import type { Db } from '../src/db/client.ts';
import type { BenchDatabase } from './databases.ts';

export interface BenchApp {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

export async function listenWithBareRoute(
  db: Db,
  bare: {
    path: string;
    /** The answer's JSON schema (serialized as the API's routes are), or none: `contentType`'s bytes. */
    schema?: unknown;
    contentType?: string;
    handler: () => Promise<unknown>;
  },
): Promise<BenchApp> {
  // The rate limits count every request where the service would (in Redis with REDIS_URL), but
  // with a limit the load never reaches.
  const limiters = await openLimiters(
    { db, redisUrl: process.env.REDIS_URL || null },
    { points: 1_000_000_000 },
  );
  const app = await buildApp({ config: { baseUrl: 'http://127.0.0.1' }, db, limiters });
  app.addHook('onClose', () => limiters.close());
  try {
    const response = bare.schema === undefined ? {} : { response: { 200: bare.schema } };
    app.get(bare.path, { schema: { hide: true, ...response } }, async (_request, reply) => {
      if (bare.contentType) reply.type(bare.contentType);
      return bare.handler();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return { origin: `http://127.0.0.1:${address.port}`, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}

/** Stops the server (if it got as far as listening), then removes its database. */
export async function closeBoth(app: BenchApp | null, bench: BenchDatabase): Promise<void> {
  try {
    await app?.close();
  } finally {
    await bench.dispose();
  }
}
