import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { generatedSchema, schemaFile } from '../../packages/client/scripts/generate.ts';

test('packages/client/src/schema.ts matches the served OpenAPI document (else: npm run client:generate)', async () => {
  const committed = readFileSync(schemaFile, 'utf8').split('\n');
  const current = (await generatedSchema()).split('\n');
  const line = current.findIndex((text, i) => text !== committed[i]);
  assert.ok(
    line === -1 && committed.length === current.length,
    `schema.ts is stale from line ${line + 1}: run npm run client:generate`,
  );
});
