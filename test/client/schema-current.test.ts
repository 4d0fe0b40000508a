import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { generatedSchema, schemaFile } from '../../packages/client/scripts/generate.ts';

function assertSame(committed: string, current: string, when: string): void {
  const committedLines = committed.split('\n');
  const currentLines = current.split('\n');
  const line = currentLines.findIndex((text, i) => text !== committedLines[i]);
  assert.ok(
    line === -1 && committedLines.length === currentLines.length,
    `schema.ts differs ${when} from line ${line + 1}: ${currentLines[line]}`,
  );
}

test('packages/client/src/schema.ts matches the served OpenAPI document (else: npm run client:generate)', async () => {
  assertSame(readFileSync(schemaFile, 'utf8'), await generatedSchema(), 'from today’s document');
});

test('the served OpenAPI document, and so schema.ts, is the same on a later day', async () => {
  const generator = new URL('../../packages/client/scripts/generate.ts', import.meta.url).href;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      new URL('./date-moved-on.ts', import.meta.url).href,
      '--input-type=module',
      '--eval',
      `process.stdout.write(await (await import(${JSON.stringify(generator)})).generatedSchema())`,
    ],
    { env: { ...process.env, DATE_MOVED_ON_DAYS: '400' }, maxBuffer: 64 * 1024 * 1024 },
  );
  assertSame(readFileSync(schemaFile, 'utf8'), stdout, 'from the document served 400 days later');
});
