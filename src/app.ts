import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { MenuImages } from './adapters/hosted-images.ts';
import { StripePayments } from './adapters/payments/stripe-payments.ts';
import { testPayments } from './adapters/payments/test-payments.ts';
import { openLimiters } from './adapters/rate-limit-stores.ts';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { PaymentProvider } from './domain/payments/payment-provider.ts';
import { type Clock, systemClock } from './domain/shared/context.ts';
import type { Limiters } from './domain/shared/limits.ts';
import type { ApiRoute } from './http/api-v1/api-route.ts';
import { apiV1Plugin } from './http/api-v1/api-v1.plugin.ts';
import { openApiRoutes } from './http/api-v1/openapi.route.ts';
import { registerOpenApi } from './http/api-v1/openapi.ts';
import { consolePlugin } from './http/console/console.plugin.ts';
import { consolePagesPlugin } from './http/console/pages/console-pages.plugin.ts';
import { dashboardPlugin } from './http/dashboard/dashboard.plugin.ts';
import { dashboardPagesPlugin } from './http/dashboard/pages/dashboard-pages.plugin.ts';
import { earlierMetadataAddress, rewriteEarlierApiAddress } from './http/earlier-addresses.ts';
import { healthRoute } from './http/health.route.ts';
import { imagesRoute } from './http/images.route.ts';
import { authorizePlugin } from './http/oauth/authorize.plugin.ts';
import { oauthPlugin } from './http/oauth/oauth.plugin.ts';
import { stripeWebhookRoute } from './http/payments/stripe-webhook.route.ts';
import { clientErrorAnswer, newRequestId } from './http/shared/client-error.ts';
import { errorHandler, sendError, toApiError } from './http/shared/error-reply.ts';
import { acceptJsonBodies, refuseBodiesOfBodilessMethods } from './http/shared/json-body.ts';
import { notFoundOrMethodNotAllowed } from './http/shared/method-not-allowed.ts';
import { parseQueryString } from './http/shared/query-string.ts';
import { validatorCompiler } from './http/shared/validation.ts';
import { unknownPage } from './http/site/not-found-page.ts';
import { sitePagesPlugin } from './http/site/site-pages.plugin.ts';
import { storefrontPagesPlugin } from './http/storefront/pages/storefront-pages.plugin.ts';
import { storefrontAddress } from './http/storefront/storefront-address.ts';
import { storefrontApiPlugin } from './http/storefront/storefront-api.plugin.ts';
import { rewriteStorefrontHost } from './http/storefront/storefront-host.ts';
import { assetsPlugin } from './http/web/assets.ts';
import { countRequests, type Metrics } from './observability/metrics.ts';
import { nameServerSpansByRoute } from './observability/tracing.ts';

export const apiVersion = '2026-10-08';

export interface AppDeps {
  /** `authUrl` (where the consent page is served) defaults to `baseUrl`. */
  config: Pick<Config, 'baseUrl'> &
    Partial<
      Pick<
        Config,
        | 'authUrl'
        | 'redisUrl'
        | 'appUrl'
        | 'storefrontDomain'
        | 'webhooksAllowInsecure'
        | 'trustProxy'
        | 'tracing'
      >
    >;
  db: Db;
  clock?: Clock;
  /** A pino logger; without one the server logs nothing (tests). */
  logger?: FastifyBaseLogger;
  /** Extra /v1 operations (tests of the shared mechanisms). */
  extraApiRoutes?: readonly ApiRoute[];
  /** Makes the rate limits; by default they count where `config.redisUrl` and `db` say (see openLimiters). */
  limiters?: Limiters;
  /**
   * Menu images: served from their store at /images/<key>, new ones downloaded by API writes.
   * Without: none served, and writes leave every new image to the worker.
   */
  images?: MenuImages;
  /**
   * Takes live restaurants' online payments; by default the built-in test provider. With Stripe,
   * its webhook (POST /payments/stripe/webhook) is served too.
   */
  payments?: PaymentProvider;
  /** Counts the requests in these metrics (METRICS_LISTEN, src/observability/metrics.ts). */
  metrics?: Metrics;
}

/** Secrets never reach the logs. */
const redactedLogPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.token',
  '*.code_verifier',
];

/**
 * How the service's logger redacts (src/main.ts): the paths above, and in a request's URL the
 * value of a `token` parameter (the links mailed to accounts), so the rest of the URL stays.
 */
export const logRedaction = {
  paths: [...redactedLogPaths, 'req.url'],
  censor: (value: unknown, path: string[]): unknown =>
    path.at(-1) === 'url' && typeof value === 'string'
      ? value.replace(/([?&]token=)[^&#]*/g, '$1[redacted]')
      : '[redacted]',
};

/**
 * The headers on every answer of the service; served over https (BASE_URL), also
 * Strict-Transport-Security: browsers then use https alone for a year.
 */
function serviceHeaders(https: boolean) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    reply.header('x-request-id', request.id).header('service-api-version', apiVersion);
    return https ? reply.header('strict-transport-security', 'max-age=31536000') : reply;
  };
}

/** The HTTP server with its surfaces: health, the public API (/v1) and its OpenAPI/Postman documents. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock;
  const limiters =
    deps.limiters ??
    (await openLimiters({ db: deps.db, redisUrl: deps.config.redisUrl, log: deps.logger, clock }));
  const earlierApiAddress = rewriteEarlierApiAddress(deps.config);
  const storefrontHost = rewriteStorefrontHost(deps.config);
  const withServiceHeaders = serviceHeaders(new URL(deps.config.baseUrl).protocol === 'https:');
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    genReqId: newRequestId,
    routerOptions: { querystringParser: parseQueryString },
    bodyLimit: 64 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // request.ip: the peer, or behind trusted proxies the client X-Forwarded-For names.
    trustProxy: deps.config.trustProxy ?? false,
    // Requests Node's HTTP parser refuses (bad header bytes) are answered in the error shape too.
    clientErrorHandler: clientErrorAnswer(apiVersion),
    // A path that is not percent-encoded UTF-8, or a path parameter over 100 characters.
    // (Fastify answers these before any hook runs.)
    frameworkErrors: (error, request, reply) =>
      sendError(request, withServiceHeaders(request, reply), toApiError(error)),
    // The app host's `/api/v1/...` answers as `/v1/...` (see earlier-addresses.ts); a storefront's
    // own host `<slug>.{storefront_domain}` as `/s/<slug>/...` (storefront-host.ts).
    rewriteUrl: (req) => storefrontHost(req, earlierApiAddress?.(req) ?? req.url ?? '/'),
  });
  app.setValidatorCompiler(validatorCompiler);
  acceptJsonBodies(app, 'refuse');
  app.addHook('preValidation', refuseBodiesOfBodilessMethods);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundOrMethodNotAllowed(app, unknownPage));
  if (deps.metrics) countRequests(app, deps.metrics);
  if (deps.config.tracing) nameServerSpansByRoute(app);
  // Limiters passed in belong to the caller; those opened here close with the app.
  if (!deps.limiters) app.addHook('onClose', () => limiters.close());
  app.addHook('onSend', async (request, reply, payload) => {
    withServiceHeaders(request, reply);
    return payload;
  });

  await registerOpenApi(app, { baseUrl: deps.config.baseUrl, apiVersion });

  await app.register(healthRoute, { db: deps.db });
  if (deps.images) await app.register(imagesRoute, { store: deps.images.store });
  await app.register(
    async (v1) => {
      await v1.register(apiV1Plugin, {
        db: deps.db,
        clock,
        limiters,
        images: deps.images?.fetcher,
        extraRoutes: deps.extraApiRoutes,
        storefront: (slug) => storefrontAddress(deps.config, slug),
      });
      await v1.register(openApiRoutes);
    },
    { prefix: '/v1' },
  );
  await app.register(oauthPlugin, { db: deps.db, clock, config: deps.config, limiters });
  await app.register(earlierMetadataAddress, { config: deps.config });
  await app.register(authorizePlugin, { db: deps.db, clock, config: deps.config, limiters });
  await app.register(assetsPlugin);
  await app.register(sitePagesPlugin, { config: deps.config });
  await app.register(consolePlugin, { db: deps.db, clock, config: deps.config, limiters });
  await app.register(dashboardPlugin, { db: deps.db, clock, config: deps.config, limiters });
  await app.register(consolePagesPlugin, { db: deps.db, clock, config: deps.config, limiters });
  await app.register(dashboardPagesPlugin, {
    db: deps.db,
    clock,
    config: deps.config,
    limiters,
    images: deps.images?.fetcher,
  });
  const storefront = {
    db: deps.db,
    clock,
    config: deps.config,
    limiters,
    payments: deps.payments ?? testPayments,
    testPayments,
  };
  await app.register(storefrontApiPlugin, storefront);
  await app.register(storefrontPagesPlugin, storefront);
  if (deps.payments instanceof StripePayments)
    await app.register(stripeWebhookRoute, {
      db: deps.db,
      clock,
      stripe: deps.payments,
      config: deps.config,
    });
  return app;
}
