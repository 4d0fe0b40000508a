import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { InputError } from '../domain/shared/errors.ts';
import { openConfiguredDatabase } from './admin-transaction.ts';
import { parseCommandLine, printResult } from './command-line.ts';

/** `servery serve [--role api|worker|all]` */
export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseCommandLine('serve', () =>
    parseArgs({ args, options: { role: { type: 'string', default: 'all' } }, strict: true }),
  );
  const role = values.role;
  if (role !== 'api' && role !== 'worker' && role !== 'all')
    throw new InputError(`serve: --role must be api, worker or all, not "${role}"`);
  const config = loadConfig();
  // Loaded here so that the admin commands start without the HTTP server's modules.
  const { serve } = await import('../main.ts');
  await serve(config, role);
}

/** `servery migrate`: applies the pending migrations and exits. */
export async function migrateCommand(args: string[]): Promise<void> {
  const { values } = parseCommandLine('migrate', () =>
    parseArgs({ args, options: { json: { type: 'boolean', default: false } }, strict: true }),
  );
  const database = await openConfiguredDatabase();
  try {
    const applied = await migrate(database);
    printResult(
      values.json,
      { applied },
      applied.length ? `applied ${applied.join(', ')}` : 'database is up to date',
    );
  } finally {
    await database.close();
  }
}
