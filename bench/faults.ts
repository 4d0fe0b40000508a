/*
 * `npm run faults [-- --rounds <n>]` (DATABASE_URL set to a PostgreSQL server): the fault tests of
 * test/operations/ with many rounds instead of npm test's few (default 100, FAULT_ROUNDS):
 * - sigkill.test.ts: an API process SIGKILLed in the middle of writes while a second one serves on;
 * - webhook-sigkill.test.ts: one of two worker processes SIGKILLed in the middle of deliveries;
 * - database-faults.test.ts: the database cut (a TCP proxy closed and reopened) and PostgreSQL
 *   restarted (a server of the test's own) under load on 2 API and 2 worker processes.
 * Each test prints its figures (rounds, requests, failures, lost and duplicated, time) as a
 * diagnostic line; see docs/performance.md for the last run's.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: process.env.FAULT_ROUNDS || '100' } },
  strict: true,
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, not "${values.rounds}"`);
if (!process.env.DATABASE_URL) {
  process.stderr.write(
    'npm run faults needs DATABASE_URL (PostgreSQL): the faults are of several processes on one database\n',
  );
  process.exit(2);
}

const tests = ['sigkill', 'webhook-sigkill', 'database-faults'].map(
  (name) => `test/operations/${name}.test.ts`,
);
const run = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...tests], {
  cwd: new URL('../', import.meta.url).pathname,
  env: { ...process.env, FAULT_ROUNDS: String(rounds) },
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
