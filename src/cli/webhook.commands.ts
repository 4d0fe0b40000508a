import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { actInRestaurant } from '../domain/restaurants/restaurant-gate.ts';
import { findRestaurant } from '../domain/restaurants/restaurants.service.ts';
import type { Ctx } from '../domain/shared/context.ts';
import { ApiError, InputError } from '../domain/shared/errors.ts';
import {
  getAppWebhook,
  listAppWebhookSecrets,
  rotateAppWebhookSecret,
  setAppWebhook,
} from '../domain/webhooks/app-webhook.service.ts';
import {
  createRestaurantWebhook,
  deleteRestaurantWebhook,
  listRestaurantWebhooks,
} from '../domain/webhooks/restaurant-webhooks.service.ts';
import { inAdminTransaction } from './admin-transaction.ts';
import { onlyArgument, parseCommandLine, printResult, required, requiredList } from './command-line.ts';

/** The domain's refusals (a bad address, an unknown event type, no such app) are the operator's mistakes: exit 2. */
function asOperator<T>(command: string, work: (ctx: Ctx) => Promise<T>): Promise<T> {
  return inAdminTransaction(async (ctx) => {
    try {
      return await work(ctx);
    } catch (error) {
      if (error instanceof ApiError && error.status < 500)
        throw new InputError(`${command}: ${error.message}${error.param ? ` (${error.param})` : ''}`);
      throw error;
    }
  });
}

const insecureRules = () => ({ allowInsecure: loadConfig().webhooksAllowInsecure });

interface Parsed {
  values: { json?: boolean; url?: string; events?: string };
  positionals: string[];
}

/** The command's options (`--json`, and `--url`/`--events` where it takes them) and positional arguments. */
function parse(command: string, args: string[], options: Record<string, { type: 'string' }> = {}): Parsed {
  return parseCommandLine(command, () =>
    parseArgs({
      args,
      options: { ...options, json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: true,
    }),
  );
}

/** `servery webhook set <client_id> --url <u> --events <list>`: creates or changes the app's webhook. */
export async function webhookSetCommand(args: string[]): Promise<void> {
  const command = 'webhook set';
  const { values, positionals } = parse(command, args, {
    url: { type: 'string' },
    events: { type: 'string' },
  });
  const clientId = onlyArgument(command, "app's client_id", positionals);
  const url = required(command, 'url', values.url);
  const events = requiredList(command, 'events', values.events === undefined ? [] : [values.events]);
  const result = await asOperator(command, (ctx) =>
    setAppWebhook(ctx, { clientId, developerId: null, url, events, rules: insecureRules() }),
  );
  printResult(
    values.json === true,
    { webhook: result.webhook, secret: result.secret },
    `${result.created ? 'created' : 'changed'} the webhook of ${clientId}: ${result.webhook.url} (${result.webhook.events.join(', ')})` +
      (result.secret ? `; signing secret ${result.secret}` : ''),
  );
}

/** `servery webhook show <client_id>`: the app's webhook and the secrets signing now. */
export async function webhookShowCommand(args: string[]): Promise<void> {
  const command = 'webhook show';
  const { values, positionals } = parse(command, args);
  const clientId = onlyArgument(command, "app's client_id", positionals);
  const ref = { clientId, developerId: null };
  const { webhook, secrets } = await asOperator(command, async (ctx) => ({
    webhook: await getAppWebhook(ctx, ref),
    secrets: (await listAppWebhookSecrets(ctx, ref)).data,
  }));
  printResult(
    values.json === true,
    { webhook, secrets },
    [
      `${webhook.url} (${webhook.enabled ? 'enabled' : `switched off: ${webhook.disabled_reason ?? ''}`})`,
      `events: ${webhook.events.join(', ')}`,
      ...secrets.map(
        (s) => `secret: ${s.secret}${s.expires_at ? ` (until ${s.expires_at.toISOString()})` : ''}`,
      ),
    ].join('\n'),
  );
}

/** `servery webhook rotate-secret <client_id>`: a new signing secret; the old one signs 24 more hours. */
export async function webhookRotateSecretCommand(args: string[]): Promise<void> {
  const command = 'webhook rotate-secret';
  const { values, positionals } = parse(command, args);
  const clientId = onlyArgument(command, "app's client_id", positionals);
  const rotated = await asOperator(command, (ctx) =>
    rotateAppWebhookSecret(ctx, { clientId, developerId: null }),
  );
  printResult(
    values.json === true,
    rotated,
    `new signing secret ${rotated.secret}` +
      (rotated.previous_secret_expires_at
        ? `; the previous one signs until ${rotated.previous_secret_expires_at.toISOString()}`
        : ''),
  );
}

/** The operator's ctx acting in the restaurant of `slug` (or id). */
async function inRestaurant(ctx: Ctx, command: string, slug: string): Promise<Ctx> {
  const restaurant = await findRestaurant(ctx, slug);
  if (!restaurant) throw new InputError(`${command}: no restaurant ${slug}`);
  return actInRestaurant(ctx, restaurant.id, []);
}

/** `servery restaurant webhook add|list|remove …`: a restaurant's own webhooks. */
export async function restaurantWebhookCommand(args: string[]): Promise<void> {
  const [verb, ...rest] = args;
  if (verb === 'add') return addCommand(rest);
  if (verb === 'list') return listCommand(rest);
  if (verb === 'remove') return removeCommand(rest);
  throw new InputError('"restaurant webhook" needs one of: add, list, remove');
}

async function addCommand(args: string[]): Promise<void> {
  const command = 'restaurant webhook add';
  const { values, positionals } = parse(command, args, {
    url: { type: 'string' },
    events: { type: 'string' },
  });
  const slug = onlyArgument(command, "restaurant's slug or id", positionals);
  const url = required(command, 'url', values.url);
  const events = requiredList(command, 'events', values.events === undefined ? [] : [values.events]);
  const { webhook, secret } = await asOperator(command, async (ctx) =>
    createRestaurantWebhook(await inRestaurant(ctx, command, slug), {
      url,
      events,
      rules: insecureRules(),
    }),
  );
  printResult(
    values.json === true,
    { webhook, secret },
    `added webhook ${webhook.id}: ${webhook.url} (${webhook.events.join(', ')}); signing secret ${secret}`,
  );
}

async function listCommand(args: string[]): Promise<void> {
  const command = 'restaurant webhook list';
  const { values, positionals } = parse(command, args);
  const slug = onlyArgument(command, "restaurant's slug or id", positionals);
  const list = await asOperator(command, async (ctx) =>
    listRestaurantWebhooks(await inRestaurant(ctx, command, slug)),
  );
  printResult(
    values.json === true,
    { webhooks: list.data },
    list.data.length === 0
      ? 'no webhooks'
      : list.data
          .map((w) => `${w.id} ${w.url} (${w.events.join(', ')})${w.enabled ? '' : ' switched off'}`)
          .join('\n'),
  );
}

async function removeCommand(args: string[]): Promise<void> {
  const command = 'restaurant webhook remove';
  const { values, positionals } = parse(command, args);
  const [slug, webhookId, ...extra] = positionals;
  if (!slug || !webhookId)
    throw new InputError(`${command}: give the restaurant's slug or id and the webhook's id`);
  if (extra.length > 0) throw new InputError(`${command}: unexpected argument "${extra[0]}"`);
  await asOperator(command, async (ctx) =>
    deleteRestaurantWebhook(await inRestaurant(ctx, command, slug), { webhookId }),
  );
  printResult(values.json === true, { removed: webhookId }, `removed webhook ${webhookId}`);
}
