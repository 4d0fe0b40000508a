#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config.ts';
import { setPasswordHashCost } from '../domain/accounts/password.ts';
import { InputError } from '../domain/shared/errors.ts';
import { createDeveloperCommand, createOwnerCommand, secondFactorOffCommand } from './account.commands.ts';
import { appSecretCommand, appStatusCommand, createAppCommand } from './app.commands.ts';
import { clockCommand } from './clock.commands.ts';
import { demoGuestsCommand, demoTokenCommand } from './demo.commands.ts';
import { distributeCommand } from './distribute.commands.ts';
import { createRestaurantCommand, restaurantSubscriptionCommand } from './restaurant.commands.ts';
import { migrateCommand, serveCommand } from './service.commands.ts';
import { areaCommand, tableCommand } from './table.commands.ts';
import {
  restaurantWebhookCommand,
  webhookRotateSecretCommand,
  webhookSetCommand,
  webhookShowCommand,
} from './webhook.commands.ts';

const usage = `Usage: servery <command> [options]

Service
  serve [--role api|worker|all]     run the service (default role: all)
  migrate                           apply the pending database migrations and exit
  distribute [--check | --print]    place the tables on a Citus cluster by restaurant
                                    (docs/scale-out.md); --check only says whether Citus
                                    would accept the schema, --print only prints the SQL

Accounts (a password is generated and printed once when --password is omitted)
  owner create --email <e> [--name <n>] [--password <p>]
  developer create --email <e> [--name <n>] [--password <p>]
      [--timezone <IANA>] [--currency <ISO 4217>] [--country <XX>]
                                    a developer account and its test restaurant (pro plan)
                                    defaults: Europe/Berlin, EUR, DE
  second-factor off --email <e>     turn off an account's second factor (a lost device;
                                    make sure who is asking); its sessions end

Restaurants
  restaurant create --name <n> --owner <email> [--owner <email> ...]
      --plan starter|pro|premium (--live | --test) --timezone <IANA> --currency <ISO 4217>
      [--country <XX>] [--language de|en|fr|es|it] [--slug <s>]
  restaurant subscription <slug-or-id> --active true|false

Apps
  app create --developer <email> --name <n> --type confidential|public
      --redirect-uri <uri> [--redirect-uri <uri> ...] --scope <s> [--scope <s> ...]
      [--logo-url <https-url>] [--website <https-url>]
                                    prints the client_id, and the client secret of a
                                    confidential app once; the app starts pending
  app secret <client_id>            a new client secret, printed once; the previous one
                                    stays valid for 24 hours
  app approve <client_id>
  app suspend <client_id>
  app reject <client_id>

Webhooks (addresses: https, public; WEBHOOKS_ALLOW_INSECURE also allows http and loopback)
  webhook set <client_id> --url <https-url> --events <type,group.*,...>
                                    creates or changes the app's webhook; a new one
                                    prints its signing secret (whsec_...)
  webhook show <client_id>          the app's webhook and the secrets signing now
  webhook rotate-secret <client_id> a new signing secret; the old one signs 24 more hours
  restaurant webhook add <slug-or-id> --url <https-url> --events <list>
                                    a restaurant's own webhook (up to five, no app.*)
  restaurant webhook list <slug-or-id>
  restaurant webhook remove <slug-or-id> <webhook_id>

Tables and areas (a restaurant by its slug or id; ids as the list commands print them)
  area add <slug-or-id> --name <n> [--bookable-online true|false]
  area list <slug-or-id>
  area set <slug-or-id> <area_id> [--name <n>] [--bookable-online true|false]
  area remove <slug-or-id> <area_id>   its tables stay, without an area
  table add <slug-or-id> --label <l> [--seats <n>] [--area <area_id>] [--min-party <n>]
      [--bookable-online true|false]  without --seats the table has the default size
  table list <slug-or-id>             with each table's QR key
  table set <slug-or-id> <table_id> [--label <l>] [--seats <n>|default] [--area <area_id>|none]
      [--min-party <n>|none] [--bookable-online true|false]
  table remove <slug-or-id> <table_id>
  table qr-key <slug-or-id> <table_id>
                                    a new QR key; codes printed with the old one stop working

Sandbox clock (development only: SANDBOX_CLOCK=true for the service and these commands)
  clock show                        the time every time rule of the installation reads
  clock advance <duration>          moves it forward, e.g. 61s, 90m, 1h30m, 2d: tokens and
                                    codes expire, pauses end, webhook retries fall due
  clock reset                       back to the system time

Demo
  demo guests [--slug <s>] [--orders <n>] [--every <seconds>] [--url <base>]
                                    guests order at the running service's storefront (default:
                                    the demo restaurant, 10 orders, one every 3 s, at BASE_URL,
                                    else http://localhost:$PORT, as the service reads them)
                                    and each order placed is printed as it goes
  demo token [--restaurant <slug>]  a fresh access token (one hour) and refresh token of the
                                    demo app for each restaurant it is connected to, or the one
                                    named (e.g. trattoria-demo), printed once

  help, --help                      this list

Every command but serve takes --json: its result as one JSON object on stdout.
Settings come from the environment (DATABASE_URL, DATA_DIR, ...; see docs/operators.md).
Exit codes: 0 done, 2 refused (bad input; nothing changed), 1 failed.`;

type Command = (args: string[]) => Promise<void>;

const commands: Readonly<Record<string, Command>> = {
  serve: serveCommand,
  migrate: migrateCommand,
  distribute: distributeCommand,
  'owner create': createOwnerCommand,
  'developer create': createDeveloperCommand,
  'second-factor off': secondFactorOffCommand,
  'restaurant create': createRestaurantCommand,
  'restaurant subscription': restaurantSubscriptionCommand,
  'app create': createAppCommand,
  'app secret': appSecretCommand,
  'app approve': appStatusCommand('approve', 'approved'),
  'app suspend': appStatusCommand('suspend', 'suspended'),
  'app reject': appStatusCommand('reject', 'rejected'),
  'webhook set': webhookSetCommand,
  'webhook show': webhookShowCommand,
  'webhook rotate-secret': webhookRotateSecretCommand,
  // add, list, remove: the third word is read by the command
  'restaurant webhook': restaurantWebhookCommand,
  // add, list, set, remove (and qr-key): the second word is read by the command
  table: tableCommand,
  area: areaCommand,
  'clock show': clockCommand('show'),
  'clock advance': clockCommand('advance'),
  'clock reset': clockCommand('reset'),
  'demo guests': demoGuestsCommand,
  'demo token': demoTokenCommand,
};

/** The commands named by a noun and a verb: `owner create`, `app approve`... */
const nouns = new Set(
  Object.keys(commands).flatMap((name) => (name.includes(' ') ? [name.split(' ')[0]] : [])),
);

const helpFlags = new Set(['help', '--help', '-h']);

async function main(argv: readonly string[]): Promise<void> {
  const [first, second] = argv;
  if (first === undefined || helpFlags.has(first)) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const twoWords = nouns.has(first);
  if (twoWords && (second === undefined || second.startsWith('-'))) {
    if (second !== undefined && helpFlags.has(second)) {
      process.stdout.write(`${usage}\n`);
      return;
    }
    const verbs = Object.keys(commands).filter((name) => name.startsWith(`${first} `));
    throw new InputError(`"${first}" needs one of: ${verbs.map((name) => name.split(' ')[1]).join(', ')}`);
  }
  const name = twoWords ? `${first} ${second}` : first;
  const command = commands[name];
  if (!command) throw new InputError(`unknown command "${name}" (see "servery help")`);
  const args = argv.slice(twoWords ? 2 : 1);
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  setPasswordHashCost(loadConfig().passwordHashCost);
  await command(args);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const refused =
    error instanceof InputError ||
    error instanceof ConfigError ||
    String((error as { code?: unknown } | null)?.code).startsWith('ERR_PARSE_ARGS');
  const message = error instanceof Error ? (refused ? error.message : (error.stack ?? error.message)) : error;
  process.stderr.write(`servery: ${message}\n`);
  process.exit(refused ? 2 : 1);
});
