/*
 * A node:test reporter: the run's time and its slowest test files, each with its own duration as
 * the file's process reported it (npm test prints it last; the figures are in docs/performance.md
 * "The test suite").
 */
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
  yield `\nThe test files took ${seconds(run).trim()} s, ${files.length} files; the slowest:\n`;
  for (const { file, ms, tests } of files.sort((a, b) => b.ms - a.ms).slice(0, 20))
    yield `${seconds(ms)} s  ${file} (${tests} tests)\n`;
}
