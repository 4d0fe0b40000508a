import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';

/** `GET /health`: 200 when the service can reach its database, 503 otherwise (for load balancers). */
export async function healthRoute(app: FastifyInstance, options: { db: Db }): Promise<void> {
  app.get('/health', { schema: { hide: true } }, async (request, reply) => {
    try {
      await sql`SELECT 1`.execute(options.db);
      return { status: 'ok' };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unreachable');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
}
