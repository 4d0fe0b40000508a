/*
 * `npm test` runs this: every test file (or those under the paths given: `npm test -- test/menu`),
 * in a few processes instead of one per file, as many at a time as the machine has cores. Each
 * process runs a batch of files one after another (test/run-files.ts), so Node, the sources and
 * PGlite's compiled WebAssembly load once per batch: a process of its own cost each file some 8 s
 * of CPU before its first test. Batches shrink as the run goes on (a share of what is left), so
 * the processes finish close together. Each batch's output is printed when it ends; last come the
 * counts, the files that failed and the slowest files, and every file's time goes to
 * test-results/file-times-<pglite|postgres|citus>.txt (docs/performance.md, "The test suite").
 */
import { spawn } from 'node:child_process';
import { globSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { FileReport } from './file-times-reporter.ts';

const roots = process.argv.length > 2 ? process.argv.slice(2) : ['test'];
const files = roots
  .flatMap((root) => (statSync(root).isDirectory() ? globSync(`${root}/**/*.test.ts`) : [root]))
  .map((file) => path.normalize(file))
  .sort();
if (files.length === 0) {
  process.stderr.write(`no test files under ${roots.join(', ')}\n`);
  process.exit(2);
}
const processes = Math.min(availableParallelism(), files.length);
const reports = mkdtempSync(path.join(tmpdir(), 'servery-test-run-'));
const started = performance.now();

let batches = 0;
/** The next batch: a share of the files left, so that the last batches are single files. */
function nextBatch(): string[] {
  return files.splice(0, Math.ceil(files.length / (2 * processes)));
}

/** Runs one batch in a process of its own; resolves with whether it passed. */
function runBatch(batch: string[]): Promise<boolean> {
  const report = path.join(reports, `batch-${++batches}.jsonl`);
  const args = [
    '--expose-gc',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./test/file-times-reporter.ts',
    `--test-reporter-destination=${report}`,
    'test/run-files.ts',
    ...batch,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  const batchStarted = performance.now();
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const passed = code === 0;
      const took = seconds(performance.now() - batchStarted);
      const outcome = passed ? 'passed' : `FAILED (${signal ?? `exit code ${code}`})`;
      process.stdout.write(
        `\n── ${batch.length} files, ${batch[0]} … ${batch.at(-1)}: ${outcome} in ${took} s\n`,
      );
      process.stdout.write(Buffer.concat(output));
      resolve(passed);
    });
  });
}

const all = [...files];
let allPassed = true;
await Promise.all(
  Array.from({ length: processes }, async () => {
    for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
      if (!(await runBatch(batch))) allPassed = false;
    }
  }),
);

const finished = globSync(`${reports}/*.jsonl`).flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FileReport),
);
rmSync(reports, { recursive: true, force: true });

const reported = new Set(finished.map(({ file }) => file));
const unfinished = all.filter((file) => !reported.has(file));
const failedFiles = finished.filter(({ failed }) => failed > 0);
const tests = finished.reduce((sum, { tests }) => sum + tests, 0);
const failed = finished.reduce((sum, { failed }) => sum + failed, 0);
const oneAfterAnother = finished.reduce((sum, { ms }) => sum + ms, 0);
const lines = finished
  .sort((a, b) => b.ms - a.ms)
  .map(({ file, ms, tests }) => `${seconds(ms).padStart(7)} s  ${file} (${tests} tests)\n`);
const head =
  `The test files took ${seconds(performance.now() - started)} s in ${batches} processes, ` +
  `${all.length} files, ${seconds(oneAfterAnother)} s one after another`;
const database = process.env.CITUS_URL ? 'citus' : process.env.DATABASE_URL ? 'postgres' : 'pglite';
const list = path.join('test-results', `file-times-${database}.txt`);
mkdirSync(path.dirname(list), { recursive: true });
writeFileSync(list, `${head}:\n${lines.join('')}`);

process.stdout.write(`\n${head}; the slowest (all in ${list}):\n${lines.slice(0, 20).join('')}`);
process.stdout.write(`\n${tests} tests, ${tests - failed} passed, ${failed} failed\n`);
for (const { file, failed } of failedFiles) process.stdout.write(`FAILED: ${file} (${failed})\n`);
for (const file of unfinished) process.stdout.write(`DID NOT FINISH: ${file}\n`);
if (!allPassed || failed > 0 || unfinished.length > 0) process.exitCode = 1;

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
