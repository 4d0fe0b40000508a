/*
 * A node:test reporter: the run's time and its slowest test files, each with its own duration as
 * the file's process reported it (npm test prints it last; the figures are in docs/performance.md
 * "The test suite"). Every file's time goes to test-results/file-times-<pglite|postgres>.txt.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestEvent } from 'node:test/reporters';

export default async function* fileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files: { file: string; ms: number; tests: number }[] = [];
  let run = 0;
  for await (const event of source) {
    if (event.type !== 'test:summary') continue;
    const { file, duration_ms, counts } = event.data;
    if (file) files.push({ file: path.relative(process.cwd(), file), ms: duration_ms, tests: counts.tests });
    else run = duration_ms;
  }
  const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
  const lines = files
    .sort((a, b) => b.ms - a.ms)
    .map(({ file, ms, tests }) => `${seconds(ms)} s  ${file} (${tests} tests)\n`);
  const busy = files.reduce((sum, { ms }) => sum + ms, 0);
  const head = `The test files took ${seconds(run).trim()} s, ${files.length} files, ${seconds(busy).trim()} s one after another`;
  const list = path.join(
    'test-results',
    `file-times-${process.env.DATABASE_URL ? 'postgres' : 'pglite'}.txt`,
  );
  mkdirSync(path.dirname(list), { recursive: true });
  writeFileSync(list, `${head}:\n${lines.join('')}`);
  yield `\n${head}; the slowest (all in ${list}):\n`;
  yield* lines.slice(0, 20);
}
