import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { demoRestaurantSlug, describeDemoTokens, issueDemoTokens } from '../demo/demo-tokens.ts';
import { simulateGuests } from '../demo/guest-simulator.ts';
import { InputError } from '../domain/shared/errors.ts';
import { inAdminTransaction } from './admin-transaction.ts';
import { optionalText, parseCommandLine, printResult } from './command-line.ts';

function positive(command: string, option: string, text: string, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new InputError(`${command}: --${option} must be a whole number from 1 to ${max}, got "${text}"`);
  return value;
}

/**
 * `servery demo guests [--slug <s>] [--orders <n>] [--every <seconds>] [--url <base>]`: guests order
 * at the running service's storefront (default: the demo restaurant), one line per order. The
 * service is found where the settings put it, as the service itself reads them: BASE_URL, else
 * http://localhost:$PORT; --url wins over both.
 */
export async function demoGuestsCommand(args: string[]): Promise<void> {
  const command = 'demo guests';
  const { values } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: {
        slug: { type: 'string', default: demoRestaurantSlug },
        orders: { type: 'string', default: '10' },
        every: { type: 'string', default: '3' },
        url: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    }),
  );
  const baseUrl = (values.url ?? loadConfig().baseUrl).replace(/\/+$/, '');
  const orders = positive(command, 'orders', values.orders, 1000);
  const everyMs = positive(command, 'every', values.every, 3600) * 1000;
  const say = (line: string) => {
    if (!values.json) process.stdout.write(`${line}\n`);
  };
  say(`guests order at ${baseUrl}/s/${values.slug}`);
  let placed: number;
  try {
    placed = await simulateGuests({ baseUrl, slug: values.slug, orders, everyMs, report: say });
  } catch (error) {
    // Nothing listening there: most likely the service runs on another port or host.
    const code = (error as { code?: unknown }).code;
    if (code !== 'ECONNREFUSED' && code !== 'ENOTFOUND') throw error;
    throw new InputError(
      `${command}: nothing answers at ${baseUrl} (${code}): start the service (npm start), or say where it runs with PORT or BASE_URL as for the service, or --url`,
    );
  }
  printResult(values.json, { placed }, `${placed} order(s) placed.`);
}

/**
 * `servery demo token [--restaurant <slug>]`: a fresh access token and refresh token of the demo
 * app for each restaurant it is connected to, or the one named; printed this once (only their
 * hashes are stored), labelled by restaurant.
 */
export async function demoTokenCommand(args: string[]): Promise<void> {
  const command = 'demo token';
  const { values } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: {
        restaurant: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }),
  );
  if (values.restaurant !== undefined && optionalText(values.restaurant) === null)
    throw new InputError(`${command}: --restaurant needs a restaurant's slug, e.g. ${demoRestaurantSlug}`);
  const restaurantSlug = optionalText(values.restaurant) ?? undefined;
  const { app, tokens } = await inAdminTransaction((ctx) => issueDemoTokens(ctx, { restaurantSlug }));
  const [first] = tokens;
  const lines = [
    `fresh tokens of the app "${app.name}" (client_id ${app.clientId}), shown this once; access tokens are valid one hour:`,
    ...describeDemoTokens(tokens, '  '),
    ...(first
      ? [`try: curl -H 'Authorization: Bearer ${first.accessToken}' ${loadConfig().baseUrl}/v1/me`]
      : []),
  ];
  printResult(
    values.json,
    {
      app: { client_id: app.clientId, name: app.name },
      tokens: tokens.map((pair) => ({
        restaurant: pair.restaurant,
        connection_id: pair.connectionId,
        access_token: pair.accessToken,
        token_type: 'Bearer',
        expires_in: pair.expiresIn,
        refresh_token: pair.refreshToken,
        scope: pair.scope,
      })),
    },
    lines.join('\n'),
  );
}
