import Type, { type TProperties } from 'typebox';
import { ExternalIdInput } from '../../domain/menu/menu.schema.ts';
import { checkExternalIdText, updateOrder } from '../../domain/menu/menu-writes.ts';
import { ApiError } from '../../domain/shared/errors.ts';
import { parseTimestamp } from '../../domain/shared/timestamps.ts';
import { CursorParam, cursorAfter, keysetPosition, LimitParam } from '../shared/pagination.ts';

/* What the menu's operations share: tag, scopes, the id parameter, list filters, links. */

export const tags = ['Menu'];
export const read = { scopes: ['menu:read'] } as const;
export const write = { scopes: ['menu:write'] } as const;
const exampleId = '0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01';
const updatedSinceExample = '2026-10-08T09:30:00.000Z';

/** The filters of a menu list (spec: List filters), with examples that make a request together. */
const externalIdFilter = {
  ...ExternalIdInput,
  description: 'Only the object with this external_id of your app (one value).',
  examples: ['cat-pizza'],
};
const updatedSinceFilter = Type.String({
  format: 'date-time',
  description: 'Only objects changed after this instant (exclusive).',
  examples: [updatedSinceExample],
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
function externalIdFilterOf(url: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  checkEncodedFilter(url, 'external_id');
  checkExternalIdText(value);
  return value;
}

/**
 * The query of a menu list (spec: List filters): the list's own filters, then `external_id` and
 * `updated_since`, `limit`, and `cursor` with an example bound to the filters' examples (so the
 * examples make a request together).
 */
export function menuListQuery<F extends TProperties>(
  list: string,
  externalIdExample: string,
  own: { filters: F; examples: Record<string, unknown> } = { filters: {} as F, examples: {} },
) {
  const examples = { ...own.examples, external_id: externalIdExample, updated_since: updatedSinceExample };
  const position = keysetPosition(list, updateOrder, {
    id: exampleId,
    updated_at: new Date('2026-10-08T10:00:00.000Z'),
  });
  return Type.Object(
    {
      ...own.filters,
      external_id: Type.Optional({ ...externalIdFilter, examples: [externalIdExample] }),
      updated_since: Type.Optional(updatedSinceFilter),
      limit: LimitParam,
      cursor: Type.Optional({ ...CursorParam, examples: [cursorAfter(examples, position)] }),
    },
    { additionalProperties: false },
  );
}

/** The filters every menu list has, as its service takes them. */
export function menuListFilters(request: {
  url: string;
  query: { external_id?: string | undefined; updated_since?: string | undefined };
}): { external_id?: string; updated_since?: Date } {
  const external_id = externalIdFilterOf(request.url, request.query.external_id);
  const { updated_since } = request.query;
  return {
    ...(external_id !== undefined && { external_id }),
    ...(updated_since !== undefined && { updated_since: parseTimestamp(updated_since) as Date }),
  };
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
