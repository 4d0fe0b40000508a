import Type from 'typebox';
import { ExternalIdInput } from '../../domain/menu/menu.schema.ts';
import { checkExternalIdText } from '../../domain/menu/menu-writes.ts';
import { ApiError } from '../../domain/shared/errors.ts';

/* What the menu's operations share: tag, scopes, the id parameter, list filters, links. */

export const tags = ['Menu'];
export const read = { scopes: ['menu:read'] } as const;
export const write = { scopes: ['menu:write'] } as const;
export const exampleId = '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01';

/** The filters of a menu list (spec: List filters), with examples that make a request together. */
export const externalIdFilter = {
  ...ExternalIdInput,
  description: 'Only the object with this external_id of your app (one value).',
  examples: ['cat-pizza'],
};
export const updatedSinceFilter = Type.String({
  format: 'date-time',
  description: 'Only objects changed after this instant (exclusive).',
  examples: ['2026-10-08T09:30:00.000Z'],
});
/*
 * The query parser leaves a value that is no percent-encoded UTF-8 as it came (`%FF`); a schema
 * with a pattern refuses it, but external_id is free text, which a leftover `%FF` would pass as.
 * So the external_id filter is checked in the raw query: such a value is a 400 on it.
 */
function checkEncodedFilter(url: string, name: string): void {
  const query = url.slice(url.indexOf('?') + 1);
  if (query === url) return;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || pair.slice(0, eq) !== name) continue;
    try {
      decodeURIComponent(pair.slice(eq + 1));
    } catch {
      throw new ApiError('invalid_request', `${name} is not percent-encoded UTF-8.`, { param: name });
    }
  }
}

/** The external_id filter: the rules of an external_id, on the query parameter. */
export function externalIdFilterOf(url: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  checkEncodedFilter(url, 'external_id');
  checkExternalIdText(value);
  return value;
}

export const IdParams = Type.Object(
  { id: Type.String({ format: 'uuid', examples: [exampleId] }) },
  { additionalProperties: false },
);

/** OpenAPI links from a create's answer to the new object's read, change and delete. */
export function linksToTheNew(noun: string, [get, update, remove]: readonly [string, string, string]) {
  const link = (operationId: string, verb: string) => ({
    operationId,
    parameters: { id: '$response.body#/id' },
    description: `${verb} the new ${noun}.`,
  });
  return { [get]: link(get, 'Read'), [update]: link(update, 'Change'), [remove]: link(remove, 'Delete') };
}
