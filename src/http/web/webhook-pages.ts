import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TFunction } from 'i18next';
import { eventTypes } from '../../domain/events/events.store.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import type { Limiter } from '../../domain/shared/limits.ts';
import { writeTransaction } from '../../domain/shared/write-collisions.ts';
import {
  checkTestEventType,
  getDelivery,
  type LoggedWebhook,
  listDeliveries,
  manualSendLimit,
  newestFirst,
  resendDelivery,
  sendTestEvent,
} from '../../domain/webhooks/delivery-log.service.ts';
import { eventGroups, type WebhookOwner } from '../../domain/webhooks/event-selection.ts';
import { maxRestaurantWebhooks } from '../../domain/webhooks/restaurant-webhooks.service.ts';
import {
  type AppWebhook,
  type DeliveryView,
  type SigningSecret,
  type WebhookInput,
  WebhookInputSchema,
} from '../../domain/webhooks/webhook.schema.ts';
import { maxWebhookUrlLength, WebhookAddressRefused } from '../../domain/webhooks/webhook-address.ts';
import type { Locale } from '../../i18n/i18n.ts';
import {
  countManualSend,
  type WebhookRouteOptions,
  webhookRouteOptions,
} from '../shared/delivery-log.route.ts';
import { keysetPage } from '../shared/pagination.ts';
import { checkedInput, inputProblems } from '../shared/validation.ts';
import { type FormError, formField, messagePage, type PageView, renderPage, sendPage } from './page.ts';
import type { SignedInPage, SignedInPageHandler, SignedInPagesOptions } from './signed-in-pages.ts';

/*
 * The webhook pages of the console (the app's one webhook) and the dashboard (a restaurant's own),
 * in one place: the webhook page (address and event selection, signing secrets, switched off and
 * on again, delete), its delivery log (newest first, paged like the JSON API), a delivery with its
 * attempts, resend and test events. Each surface says how to open the webhook of a request's path
 * (WebhookTarget); the rules are the domain's, called as the JSON API calls them. Templates:
 * `web/webhook-views/`, text: the `webhook-pages` catalog.
 */

/** What the pages' sends need: the JSON API's address rules and poster, and its limiter of sends. */
export interface WebhookServices extends WebhookRouteOptions {
  manualSends: Limiter;
}

export function webhookServices(options: SignedInPagesOptions): WebhookServices {
  // The same limiter (by its name) as the JSON API's: pages and API count together.
  return { ...webhookRouteOptions(options), manualSends: options.limiters.createLimiter(manualSendLimit) };
}

/** One webhook as a surface opens it for the signed-in account. */
export interface WebhookTarget {
  /** Acting as the account (in the restaurant, for a restaurant's own). */
  ctx: Ctx;
  /** The page's view with the surface's navigation. */
  view: PageView;
  owner: WebhookOwner;
  /** The webhook page's path; its log and forms are below it. */
  home: string;
  title: string;
  back: { href: string; text: string };
  /** The time zone of the times shown: the restaurant's, or UTC in the console. */
  zone: string;
  /** null: the app has none yet, and its page is the form to set one. */
  webhook: AppWebhook | null;
  logged: LoggedWebhook | null;
  secrets(ctx: Ctx): Promise<SigningSecret[]>;
  /** Sets the address and the selection: whether it made the webhook or changed it. */
  save(ctx: Ctx, input: WebhookInput): Promise<'created' | 'saved'>;
  enable(ctx: Ctx): Promise<unknown>;
  /** Switches it off by hand (a restaurant's own; the app's webhook is switched off only by failures). */
  disable?: (ctx: Ctx) => Promise<unknown>;
  rotate(ctx: Ctx): Promise<unknown>;
  remove(ctx: Ctx): Promise<unknown>;
  /** Where the browser goes after deleting (`?done=deleted` is added). */
  afterDelete: string;
}

export interface WebhookPagesOptions {
  /** The webhook page's route (Fastify syntax). */
  path: string;
  /**
   * The webhook of the request's path, or null when the account may not see its app or
   * restaurant (the surface's 404); an unknown webhook is a target without `webhook`.
   */
  open(request: FastifyRequest, signedIn: SignedInPage): Promise<WebhookTarget | null>;
  /** The surface's 404 for an app or restaurant the account may not see. */
  notFound(reply: FastifyReply, signedIn: SignedInPage): FastifyReply;
  /** Whether the webhook page of a target without webhook is the form to set one up (the console's). */
  setUpHere: boolean;
  services: WebhookServices;
}

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** One resource's boxes in the event selection: its groups (`order.*`, `menu.product.*`), then its types. */
export interface EventChoices {
  resource: string;
  entries: { value: string; group: boolean; id: string }[];
}

const choiceId = (value: string) => `events-${value.replace('.*', '-all').replaceAll('.', '-')}`;

/** The event types a webhook receives: a restaurant's own no app.* events; `ping` only as a test. */
const receivedTypes = (owner: WebhookOwner) =>
  eventTypes.filter((type) => type !== 'ping' && (owner === 'app' || !type.startsWith('app.')));

/** The event selection's boxes (besides `*`), by resource. */
export function eventChoices(owner: WebhookOwner): EventChoices[] {
  const types = receivedTypes(owner);
  const resources = [...new Set(types.map((type) => type.split('.')[0] as string))];
  return resources.map((resource) => ({
    resource,
    entries: [
      ...eventGroups
        .filter((group) => group.startsWith(`${resource}.`))
        .map((value) => ({ value, group: true })),
      ...types.filter((type) => type.startsWith(`${resource}.`)).map((value) => ({ value, group: false })),
    ].map((entry) => ({ ...entry, id: choiceId(entry.value) })),
  }));
}

/** The types a test event may have: `ping` first, then every type the webhook may receive. */
export function testEventTypes(owner: WebhookOwner): string[] {
  return ['ping', ...receivedTypes(owner)];
}

/** The sent webhook form: its address and its checked events, checked against the API's schema. */
export function webhookForm(body: unknown): {
  values: WebhookInput;
  checked(): WebhookInput;
  problems(t: TFunction): FormError[];
} {
  const events =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>).events : undefined;
  const values = {
    url: (formField(body, 'url') ?? '').trim(),
    events: typeof events === 'string' ? [events] : Array.isArray(events) ? events.map(String) : [],
  };
  return {
    values,
    checked: () => checkedInput(WebhookInputSchema, values),
    // Every field the API's schema refuses, each once: a submit's errors all at once.
    problems: (t) => {
      const errors = inputProblems(WebhookInputSchema, values).flatMap((param) => paramError(t, param) ?? []);
      return errors.filter((error, i) => errors.findIndex((other) => other.field === error.field) === i);
    },
  };
}

/** A refused webhook form's errors beside its fields, in the page's language; null: not the form's. */
export function webhookFormErrors(t: TFunction, error: unknown): FormError[] | null {
  if (!(error instanceof ApiError)) return null;
  if (error instanceof WebhookAddressRefused)
    return [
      {
        field: 'url',
        message: t(`errors.url.${error.reason}`, { max: maxWebhookUrlLength, host: error.host }),
      },
    ];
  if (error.code === 'limit_exceeded')
    return [{ message: t('errors.tooMany', { max: maxRestaurantWebhooks }) }];
  if (error.code !== 'invalid_request') return null;
  const refused = paramError(t, error.param);
  return refused && [refused];
}

/** The error beside the field a refused `param` names; null: no field of the form. */
function paramError(t: TFunction, param: string | undefined): FormError | null {
  if (param === 'url') return { field: 'url', message: t('errors.url.missing') };
  if (param === 'events') return { field: 'events', message: t('errors.noEvents') };
  if (param?.startsWith('events')) return { field: 'events', message: t('errors.unknownEvent') };
  return null;
}

/** An instant as the webhook pages show it: with seconds and the zone's name (UTC in the console). */
export function formatInstant(at: Date | string, zone: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'long', timeZone: zone }).format(
    new Date(at),
  );
}

/** A template of `web/webhook-views/` with what every webhook page uses. */
export function renderWebhookView(name: string, view: PageView, zone: string, data: object): string {
  return renderPage(`web/webhook-views/${name}`, view, {
    errors: [],
    done: null,
    time: (at: Date | string) => formatInstant(at, zone, view.locale),
    ...data,
  });
}

const webhookDone = new Set(['created', 'saved', 'enabled', 'disabled', 'rotated', 'deleted']);
const logDone = new Set(['testSent']);
const deliveryDone = new Set(['resent']);
const doneOf = (request: FastifyRequest, known: Set<string>) => {
  const done = formField(request.query, 'done');
  return done !== undefined && known.has(done) ? done : null;
};

/** A refused resend or test event, said in the page's language (429 for the rate limit). */
function sendErrors(t: TFunction, error: ApiError): { status: number; errors: FormError[] } | null {
  if (error.code === 'rate_limited')
    return {
      status: 429,
      errors: [
        { message: t('log.errors.rateLimited', { count: Number(error.headers['retry-after'] ?? 60) }) },
      ],
    };
  if (error.code !== 'invalid_request') return null;
  if (error.param === 'type')
    return { status: 400, errors: [{ field: 'type', message: t('log.errors.type') }] };
  // The one refusal without a param: the app has no test restaurant to take data from.
  return { status: 400, errors: [{ message: t('log.errors.noTestRestaurant') }] };
}

/*
 * The pages of one surface's webhook at `options.path`:
 * - GET the webhook page; POST it to save the address and the selection (a refusal: the form
 *   again, 400, the error beside its field, nothing saved);
 * - POST `/enable` (a switched-off webhook on again), `/disable` (a restaurant's own, by hand),
 *   `/secret/rotate`, `/delete`;
 * - GET `/deliveries?cursor=` (the log, 25 a page, newest first), `/deliveries/{id}` (its
 *   attempts); POST `/deliveries/{id}/resend` and `/test` (`type`): sent at once, outside a
 *   transaction as in the JSON API, counted against the same limit.
 * Every POST is CSRF-checked and answered with 303 to a page with its `done` message; what the
 * account may not see is the surface's 404.
 */
export function webhookPages(app: FastifyInstance, signedInPage: Wrap, options: WebhookPagesOptions): void {
  const { path, services } = options;
  const withCsrf = { preHandler: app.csrfProtection };
  type Handler = (
    request: FastifyRequest,
    reply: FastifyReply,
    target: WebhookTarget,
  ) => Promise<FastifyReply>;
  const webhookNotFound = (reply: FastifyReply, target: WebhookTarget) => {
    const { t } = target.view;
    return sendPage(
      reply,
      404,
      messagePage(target.view, {
        title: t('webhook.notFoundTitle'),
        message: t('webhook.notFound'),
        link: target.back,
      }),
    );
  };
  /** The page of a webhook the account may see; `existing`: only once it has one. */
  const webhookPage = (handler: Handler, existing = true) =>
    signedInPage(async (request, reply, signedIn) => {
      const target = await options.open(request, signedIn);
      if (!target) return options.notFound(reply, signedIn);
      if (existing && !target.webhook) return webhookNotFound(reply, target);
      return handler(request, reply, target);
    });
  /** A page of the delivery log: the webhook has one once it exists. */
  const logPage = (
    handler: (
      request: FastifyRequest,
      reply: FastifyReply,
      target: WebhookTarget,
      logged: LoggedWebhook,
    ) => Promise<FastifyReply>,
  ) =>
    webhookPage(async (request, reply, target) =>
      target.logged ? handler(request, reply, target, target.logged) : webhookNotFound(reply, target),
    );

  const showWebhook = async (
    reply: FastifyReply,
    target: WebhookTarget,
    data: { done?: string | null; values?: WebhookInput; errors?: FormError[] },
  ) => {
    const errors = data.errors ?? [];
    const secrets = target.webhook ? await target.secrets(target.ctx) : [];
    const values = data.values ?? { url: target.webhook?.url ?? '', events: target.webhook?.events ?? [] };
    return sendPage(
      reply,
      errors.length > 0 ? 400 : 200,
      renderWebhookView('webhook', target.view, target.zone, {
        target,
        webhook: target.webhook,
        secrets,
        values,
        choices: eventChoices(target.owner),
        done: data.done ?? null,
        errors,
      }),
    );
  };

  /** Runs a write of the webhook in one transaction, then 303 to `to`; gone meanwhile: 404. */
  const write = async (
    reply: FastifyReply,
    target: WebhookTarget,
    work: (ctx: Ctx) => Promise<unknown>,
    to: string,
  ) => {
    try {
      await writeTransaction(target.ctx.db, (trx) => work({ ...target.ctx, db: trx }));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return webhookNotFound(reply, target);
      throw error;
    }
    return reply.redirect(to, 303);
  };

  app.get(
    path,
    webhookPage(
      async (request, reply, target) => showWebhook(reply, target, { done: doneOf(request, webhookDone) }),
      !options.setUpHere,
    ),
  );

  app.post(
    path,
    withCsrf,
    webhookPage(async (request, reply, target) => {
      const form = webhookForm(request.body);
      const problems = form.problems(target.view.t);
      if (problems.length > 0) return showWebhook(reply, target, { values: form.values, errors: problems });
      let done: 'created' | 'saved';
      try {
        done = await writeTransaction(target.ctx.db, (trx) =>
          target.save({ ...target.ctx, db: trx }, form.checked()),
        );
      } catch (error) {
        const errors = webhookFormErrors(target.view.t, error);
        if (errors) return showWebhook(reply, target, { values: form.values, errors });
        if (error instanceof ApiError && error.code === 'not_found') return webhookNotFound(reply, target);
        throw error;
      }
      return reply.redirect(`${target.home}?done=${done}`, 303);
    }, !options.setUpHere),
  );

  app.post(
    `${path}/enable`,
    withCsrf,
    webhookPage(async (_request, reply, target) =>
      write(reply, target, (ctx) => target.enable(ctx), `${target.home}?done=enabled`),
    ),
  );
  app.post(
    `${path}/disable`,
    withCsrf,
    webhookPage(async (_request, reply, target) => {
      const { disable } = target;
      if (!disable) return webhookNotFound(reply, target);
      return write(reply, target, (ctx) => disable(ctx), `${target.home}?done=disabled`);
    }),
  );
  app.post(
    `${path}/secret/rotate`,
    withCsrf,
    webhookPage(async (_request, reply, target) =>
      write(reply, target, (ctx) => target.rotate(ctx), `${target.home}?done=rotated#secrets`),
    ),
  );
  app.post(
    `${path}/delete`,
    withCsrf,
    webhookPage(async (_request, reply, target) =>
      write(reply, target, (ctx) => target.remove(ctx), `${target.afterDelete}?done=deleted`),
    ),
  );

  const showLog = async (
    reply: FastifyReply,
    target: WebhookTarget,
    logged: LoggedWebhook,
    data: { cursor?: string; done?: string | null; status?: number; errors?: FormError[]; type?: string },
  ) => {
    const { cursor } = data;
    let page: DeliveryView[];
    let next: string | null;
    try {
      const list = await keysetPage('deliveries', newestFirst, { limit: 25, cursor }, (range) =>
        listDeliveries(target.ctx, logged.id, range),
      );
      page = list.data;
      next = list.next_cursor;
    } catch (error) {
      if (!(error instanceof ApiError) || error.param !== 'cursor') throw error;
      const { t } = target.view;
      const link = { href: `${target.home}/deliveries`, text: t('log.newest') };
      return sendPage(
        reply,
        400,
        messagePage(target.view, { title: t('log.title'), message: t('log.badCursor'), link }),
      );
    }
    return sendPage(
      reply,
      data.status ?? 200,
      renderWebhookView('deliveries', target.view, target.zone, {
        target,
        deliveries: page,
        next,
        paged: cursor !== undefined,
        testTypes: testEventTypes(target.owner),
        type: data.type ?? 'ping',
        done: data.done ?? null,
        errors: data.errors ?? [],
      }),
    );
  };

  const deliveryNotFound = (reply: FastifyReply, target: WebhookTarget) => {
    const { t } = target.view;
    return sendPage(
      reply,
      404,
      messagePage(target.view, {
        title: t('delivery.notFoundTitle'),
        message: t('delivery.notFound'),
        link: { href: `${target.home}/deliveries`, text: t('log.title') },
      }),
    );
  };

  /** The delivery of the path, or null when the webhook has no such delivery. */
  const deliveryOf = async (request: FastifyRequest, target: WebhookTarget, logged: LoggedWebhook) => {
    const { deliveryId } = request.params as { deliveryId: string };
    try {
      return await getDelivery(target.ctx, logged.id, deliveryId);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  };

  const showDelivery = (
    reply: FastifyReply,
    target: WebhookTarget,
    delivery: DeliveryView,
    data: { done?: string | null; status?: number; errors?: FormError[] },
  ) =>
    sendPage(
      reply,
      data.status ?? 200,
      renderWebhookView('delivery', target.view, target.zone, {
        target,
        delivery,
        envelope: JSON.stringify(delivery.event, null, 2),
        done: data.done ?? null,
        errors: data.errors ?? [],
      }),
    );

  app.get(
    `${path}/deliveries`,
    logPage(async (request, reply, target, logged) =>
      showLog(reply, target, logged, {
        cursor: formField(request.query, 'cursor'),
        done: doneOf(request, logDone),
      }),
    ),
  );

  app.post(
    `${path}/test`,
    withCsrf,
    logPage(async (request, reply, target, logged) => {
      const type = formField(request.body, 'type') ?? '';
      try {
        const known = checkTestEventType(logged, type);
        await countManualSend(logged, services.manualSends);
        await sendTestEvent(target.ctx, logged, known, services.delivery);
      } catch (error) {
        const refused = error instanceof ApiError ? sendErrors(target.view.t, error) : null;
        if (!refused) throw error;
        return showLog(reply, target, logged, { ...refused, type });
      }
      return reply.redirect(`${target.home}/deliveries?done=testSent`, 303);
    }),
  );

  app.get(
    `${path}/deliveries/:deliveryId`,
    logPage(async (request, reply, target, logged) => {
      const delivery = await deliveryOf(request, target, logged);
      if (!delivery) return deliveryNotFound(reply, target);
      return showDelivery(reply, target, delivery, { done: doneOf(request, deliveryDone) });
    }),
  );

  app.post(
    `${path}/deliveries/:deliveryId/resend`,
    withCsrf,
    logPage(async (request, reply, target, logged) => {
      const delivery = await deliveryOf(request, target, logged);
      if (!delivery) return deliveryNotFound(reply, target);
      try {
        await countManualSend(logged, services.manualSends);
        await resendDelivery(target.ctx, logged.id, delivery.id, services.delivery);
      } catch (error) {
        const refused = error instanceof ApiError ? sendErrors(target.view.t, error) : null;
        if (!refused) throw error;
        return showDelivery(reply, target, delivery, refused);
      }
      return reply.redirect(`${target.home}/deliveries/${delivery.id}?done=resent`, 303);
    }),
  );
}
