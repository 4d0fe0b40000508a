#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { InputError } from '../domain/errors.ts';
import { databaseTarget, type Role, serve } from '../main.ts';

const usage = `Usage: servery <command> [options]

  serve [--role api|worker|all]   run the service (default role: all)
  migrate                         apply database migrations and exit

Settings come from the environment (see README.md); --json prints results as JSON.`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({
        args: rest,
        options: { role: { type: 'string', default: 'all' } },
        strict: true,
      });
      const role = values.role;
      if (role !== 'api' && role !== 'worker' && role !== 'all')
        throw new InputError(`--role must be api, worker or all, not "${role}"`);
      await serve(config, role as Role);
      return;
    }
    case 'migrate': {
      const { values } = parseArgs({
        args: rest,
        options: { json: { type: 'boolean', default: false } },
        strict: true,
      });
      const database = await openDatabase(databaseTarget(config));
      try {
        const applied = await migrate(database);
        process.stdout.write(
          values.json
            ? `${JSON.stringify({ applied })}\n`
            : `${applied.length ? `applied ${applied.join(', ')}` : 'database is up to date'}\n`,
        );
      } finally {
        await database.close();
      }
      return;
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${usage}\n`);
      return;
    default:
      throw new InputError(`unknown command "${command}"\n\n${usage}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const known =
    error instanceof InputError ||
    error instanceof ConfigError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`servery: ${known ? (error as Error).message : (error as Error).stack}\n`);
  process.exit(known ? 2 : 1);
});
