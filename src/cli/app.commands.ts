import { parseArgs } from 'node:util';
import { findAccountByEmail } from '../domain/accounts/accounts.service.ts';
import {
  type App,
  type AppStatus,
  type AppType,
  createApp,
  createClientSecret,
  setAppStatus,
} from '../domain/apps/apps.service.ts';
import { InputError } from '../domain/shared/errors.ts';
import { inAdminTransaction } from './admin-transaction.ts';
import {
  onlyArgument,
  optionalText,
  parseCommandLine,
  printResult,
  required,
  requiredList,
} from './command-line.ts';

/** An app as the CLI prints it with --json, in the public API's snake_case. */
function appJson(app: App) {
  return {
    id: app.id,
    client_id: app.clientId,
    developer_id: app.developerId,
    name: app.name,
    type: app.type,
    redirect_uris: app.redirectUris,
    scopes: app.scopes,
    status: app.status,
  };
}

/**
 * `servery app create --developer <email> --name <n> --type confidential|public --redirect-uri <uri> [--redirect-uri …]
 * --scope <s> [--scope …] [--logo-url <u>] [--website <u>]`: prints the client id and, for a
 * confidential app, its client secret, which only this output shows.
 */
export async function createAppCommand(args: string[]): Promise<void> {
  const command = 'app create';
  const { values } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: {
        developer: { type: 'string' },
        name: { type: 'string' },
        type: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        scope: { type: 'string', multiple: true },
        'logo-url': { type: 'string' },
        website: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }),
  );
  const developerEmail = required(command, 'developer', values.developer);
  const name = required(command, 'name', values.name);
  const type = required(command, 'type', values.type) as AppType;
  const redirectUris = requiredList(command, 'redirect-uri', values['redirect-uri']);
  const scopes = requiredList(command, 'scope', values.scope);

  const { app, clientSecret } = await inAdminTransaction(async (ctx) => {
    const developer = await findAccountByEmail(ctx, developerEmail);
    if (!developer) throw new InputError(`no account with the e-mail ${developerEmail}`);
    if (!developer.developer) throw new InputError(`${developer.email} is not a developer account`);
    return createApp(ctx, {
      developerId: developer.id,
      name,
      type,
      redirectUris,
      scopes,
      logoUrl: optionalText(values['logo-url']),
      website: optionalText(values.website),
    });
  });
  printResult(
    values.json,
    { app: appJson(app), client_secret: clientSecret },
    `created ${app.type} app "${app.name}" (${app.status}): client_id ${app.clientId}` +
      (clientSecret ? `; client_secret ${clientSecret} (shown this once)` : ''),
  );
}

/**
 * `servery app secret <client_id>`: a new client secret for a confidential app, printed this once;
 * the previous one stays valid for 24 hours.
 */
export async function appSecretCommand(args: string[]): Promise<void> {
  const command = 'app secret';
  const { values, positionals } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: { json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: true,
    }),
  );
  const clientId = onlyArgument(command, "app's client_id", positionals);
  const { app, clientSecret, previousExpiresAt } = await inAdminTransaction((ctx) =>
    createClientSecret(ctx, clientId),
  );
  printResult(
    values.json,
    {
      app: appJson(app),
      client_secret: clientSecret,
      previous_secret_expires_at: previousExpiresAt?.toISOString() ?? null,
    },
    `new client secret for app "${app.name}" (${app.clientId}): ${clientSecret} (shown this once)` +
      (previousExpiresAt ? `; the previous one stays valid until ${previousExpiresAt.toISOString()}` : ''),
  );
}

/** `servery app approve|suspend|reject <client_id>` */
export function appStatusCommand(verb: string, status: AppStatus): (args: string[]) => Promise<void> {
  return async (args) => {
    const command = `app ${verb}`;
    const { values, positionals } = parseCommandLine(command, () =>
      parseArgs({
        args,
        options: { json: { type: 'boolean', default: false } },
        strict: true,
        allowPositionals: true,
      }),
    );
    const clientId = onlyArgument(command, "app's client_id", positionals);
    const app = await inAdminTransaction((ctx) => setAppStatus(ctx, clientId, status));
    printResult(
      values.json,
      { app: appJson(app) },
      `app "${app.name}" (${app.clientId}) is now ${app.status}`,
    );
  };
}
