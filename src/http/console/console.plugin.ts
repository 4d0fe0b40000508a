import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../domain/shared/context.ts';
import { webhookRouteOptions } from '../shared/delivery-log.route.ts';
import { type SignedInApiOptions, signedInApi } from '../shared/signed-in-api.ts';
import { appWebhookRoutes } from './webhook.route.ts';

/** Only developer accounts use the console. */
async function isDeveloper(ctx: Ctx, accountId: string): Promise<boolean> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select('developer')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return account?.developer === true;
}

/** The developer console's JSON API under `/console/api`: sign-in and the app's webhook. */
export async function consolePlugin(app: FastifyInstance, options: SignedInApiOptions): Promise<void> {
  const signedIn = await signedInApi(app, options, {
    path: '/console',
    cookieName: 'servery_console_session',
    mayUse: isDeveloper,
  });
  appWebhookRoutes(app, signedIn, webhookRouteOptions(options));
}
