/*
 * A node:test reporter for test/run-files.ts: for each test file (a suite at the top, the files
 * one after another), a line of JSON with its time, its tests and its failed tests. test/run.ts
 * adds them up.
 */
import type { TestEvent } from 'node:test/reporters';

export interface FileReport {
  file: string;
  ms: number;
  tests: number;
  failed: number;
}

export default async function* fileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  let tests = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, details } = event.data;
    if (nesting > 0) {
      if (details.type === 'suite') continue;
      tests += 1;
      if (event.type === 'test:fail') failed += 1;
      continue;
    }
    // A file failing with no failed test failed on import or in a hook.
    if (event.type === 'test:fail') failed = Math.max(failed, 1);
    const report: FileReport = { file: name, ms: details.duration_ms, tests, failed };
    yield `${JSON.stringify(report)}\n`;
    tests = 0;
    failed = 0;
  }
}
