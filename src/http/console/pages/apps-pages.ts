import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../domain/apps/apps.service.ts';
import {
  appTypes,
  createApp,
  type DeveloperAppRef,
  rotateClientSecret,
  updateApp,
} from '../../../domain/apps/apps.service.ts';
import {
  appsOfDeveloper,
  connectionsOfApp,
  developerApp,
  type LiveClientSecret,
} from '../../../domain/apps/apps-of-developer.ts';
import { ApiError, InputError } from '../../../domain/shared/errors.ts';
import { scopes } from '../../../domain/shared/scopes.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { translator } from '../../../i18n/i18n.ts';
import { formatDateTime } from '../../../i18n/local-time.ts';
import { type FormValues, sentValues } from '../../dashboard/pages/menu-forms.ts';
import { type FormError, messagePage, type PageView, renderPage, sendPage } from '../../web/page.ts';
import type { SignedInPage, SignedInPageHandler } from '../../web/signed-in-pages.ts';
import { appFieldError, appInput, appValues } from './apps-forms.ts';
import { consoleNavigation } from './console-navigation.ts';

type Wrap = (
  handler: SignedInPageHandler,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** A secret made by this request, shown in its answer only (see the rotation and registering). */
interface NewSecret {
  secret: string;
  /** Until when the replaced secret still works (a rotation), else null. */
  previousExpiresAt: Date | null;
}

const doneMessages = new Set(['created', 'saved']);

/*
 * The developer's apps in the console, for the signed-in developer only (another developer's app
 * is the not-found page): the list, registering an app, an app's page (details, its client
 * secrets with Rotate, its settings form, links to its webhook and connections) and its connected
 * restaurants. The forms post (CSRF-checked), each write in one transaction through the services
 * the JSON API (apps.route.ts) calls; a refusal shows the form again (400) with the error beside
 * its field, having changed nothing.
 *
 * A client secret is shown once, in the answer of the POST that made it (201), and never stored in
 * plain: not in a URL or cookie (browser history, logs, Referer) and not server-side for a later
 * view, which would keep a live secret readable in the database and need one more place to purge.
 * The price: reloading that answer offers to send the form again, which the page warns of.
 */
export function appsPages(app: FastifyInstance, signedInPage: Wrap): void {
  const withCsrf = { preHandler: app.csrfProtection };
  const namespace = 'console-apps';

  const appsView = (page: SignedInPage): PageView => {
    const view = page.view(namespace);
    return { ...view, nav: consoleNavigation(view, 'apps') };
  };
  const refOf = (request: FastifyRequest, page: SignedInPage): DeveloperAppRef => ({
    clientId: (request.params as { clientId: string }).clientId,
    developerId: page.accountId,
  });
  const notFound = (reply: FastifyReply, view: PageView) =>
    sendPage(
      reply,
      404,
      messagePage(view, {
        title: view.t('appsPages.notFoundTitle'),
        message: view.t('appsPages.notFound'),
        link: { href: '/console/apps', text: view.t('appsPages.backToApps') },
      }),
    );
  /** Times in UTC: a developer's apps serve restaurants in many zones. */
  const timeIn = (view: PageView) => (at: Date) => `${formatDateTime(at, 'UTC', view.locale)} UTC`;
  /** The scopes as checkboxes, each described as owners read it on the consent page. */
  const scopeOptions = (view: PageView) => {
    const consent = translator(view.locale, 'consent');
    return scopes.map((scope) => ({
      value: scope,
      label: `${scope}: ${consent(`scopes.${scope}`, { nsSeparator: false })}`,
    }));
  };
  const show = (reply: FastifyReply, status: number, template: string, view: PageView, data: object) =>
    sendPage(
      reply,
      status,
      renderPage(`console/pages/${template}`, view, {
        errors: [],
        time: timeIn(view),
        scopeOptions: scopeOptions(view),
        appTypes,
        ...data,
      }),
    );

  /** An app's page: details, secrets, the settings form (as sent, with its errors, or as saved). */
  const showApp = async (
    reply: FastifyReply,
    page: SignedInPage,
    ref: DeveloperAppRef,
    input: {
      status?: number;
      values?: FormValues;
      errors?: FormError[];
      done?: string | null;
      newSecret?: NewSecret;
    },
  ) => {
    const view = appsView(page);
    let found: App & { clientSecrets: LiveClientSecret[] };
    try {
      found = await developerApp(page.ctx, ref);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return notFound(reply, view);
      throw error;
    }
    return show(reply, input.status ?? 200, 'apps-app', view, {
      app: found,
      values: input.values ?? appValues(found),
      errors: input.errors ?? [],
      done: input.done ?? null,
      newSecret: input.newSecret ?? null,
      action: `/console/apps/${found.clientId}`,
    });
  };

  app.get(
    '/console/apps',
    signedInPage(async (_request, reply, page) => {
      const view = appsView(page);
      return show(reply, 200, 'apps-list', view, { apps: await appsOfDeveloper(page.ctx, page.accountId) });
    }),
  );

  app.get(
    '/console/apps/new',
    signedInPage(async (_request, reply, page) =>
      show(reply, 200, 'apps-new', appsView(page), { values: { type: 'confidential' } }),
    ),
  );

  app.post(
    '/console/apps',
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const view = appsView(page);
      const values = sentValues(request.body);
      const input = appInput(values);
      let created: Awaited<ReturnType<typeof createApp>>;
      try {
        created = await writeTransaction(page.ctx.db, (trx) =>
          createApp({ ...page.ctx, db: trx }, { developerId: page.accountId, ...input }),
        );
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        const errors = error.all.map((problem) => appFieldError(view.t, problem, input.redirectUris));
        return show(reply, 400, 'apps-new', view, { values, errors });
      }
      const ref = { clientId: created.app.clientId, developerId: page.accountId };
      if (!created.clientSecret) return reply.redirect(`/console/apps/${ref.clientId}?done=created`, 303);
      return showApp(reply, page, ref, {
        status: 201,
        done: 'created',
        newSecret: { secret: created.clientSecret, previousExpiresAt: null },
      });
    }),
  );

  app.get(
    '/console/apps/:clientId',
    signedInPage(async (request, reply, page) => {
      const { done } = request.query as { done?: string };
      return showApp(reply, page, refOf(request, page), {
        done: done !== undefined && doneMessages.has(done) ? done : null,
      });
    }),
  );

  app.post(
    '/console/apps/:clientId',
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const ref = refOf(request, page);
      const values = sentValues(request.body);
      const { type: _type, ...patch } = appInput(values);
      try {
        await writeTransaction(page.ctx.db, (trx) => updateApp({ ...page.ctx, db: trx }, ref, patch));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return notFound(reply, appsView(page));
        if (!(error instanceof InputError)) throw error;
        const { t } = appsView(page);
        const errors = error.all.map((problem) => appFieldError(t, problem, patch.redirectUris));
        return showApp(reply, page, ref, { status: 400, values, errors });
      }
      return reply.redirect(`/console/apps/${ref.clientId}?done=saved`, 303);
    }),
  );

  app.post(
    '/console/apps/:clientId/secrets',
    withCsrf,
    signedInPage(async (request, reply, page) => {
      const ref = refOf(request, page);
      let rotated: Awaited<ReturnType<typeof rotateClientSecret>>;
      try {
        rotated = await writeTransaction(page.ctx.db, (trx) =>
          rotateClientSecret({ ...page.ctx, db: trx }, ref),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return notFound(reply, appsView(page));
        // A public app has no secret to rotate (its page offers no button).
        if (error instanceof InputError)
          return showApp(reply, page, ref, {
            status: 400,
            errors: [{ message: appsView(page).t('appPage.publicHasNoSecret') }],
          });
        throw error;
      }
      return showApp(reply, page, ref, {
        status: 201,
        newSecret: { secret: rotated.clientSecret, previousExpiresAt: rotated.previousExpiresAt },
      });
    }),
  );

  app.get(
    '/console/apps/:clientId/connections',
    signedInPage(async (request, reply, page) => {
      const view = appsView(page);
      const ref = refOf(request, page);
      try {
        const [found, connections] = await Promise.all([
          developerApp(page.ctx, ref),
          connectionsOfApp(page.ctx, ref),
        ]);
        return show(reply, 200, 'apps-connections', view, { app: found, connections });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return notFound(reply, view);
        throw error;
      }
    }),
  );
}
