import Type, { type TSchema } from 'typebox';
import { ApiError } from '../../domain/shared/errors.ts';
import { isUuid, sha256 } from '../../domain/shared/ids.ts';
import type { ListOrder, PagePosition, PageRange, SortKey } from '../../domain/shared/paging.ts';

/*
 * Lists (spec: Conventions, List filters): `limit` 1 to 100, default 25; the envelope
 * `{object: "list", data, has_more, next_cursor}`; cursors are opaque and bound to the filters they
 * were made with — a cursor sent with other filters is a 400 on `cursor`.
 */
const defaultPageSize = 25;
export const LimitParam = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 100,
    default: defaultPageSize,
    description: 'Page size, 1 to 100.',
    examples: [25],
  }),
);
export const CursorParam = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'The `next_cursor` of the previous page.',
});

/**
 * A list query as the handler gets it: `limit` may be left out of the request; validation (Ajv's
 * useDefaults) fills in LimitParam's default, so it is set by then (the type cannot tell).
 */
export type PageQuery = { limit?: number; cursor?: string };

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  });
}

export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The filters a cursor is bound to: every query parameter but `cursor` and `limit`. */
function filterDigest(query: Record<string, unknown>): string {
  const filters = Object.entries(query)
    .filter(([name, value]) => name !== 'cursor' && name !== 'limit' && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return sha256(JSON.stringify(filters)).slice(0, 16);
}

/** Where the next page starts (an opaque value of the list's own order), or null for the first page. */
export function pagePosition<P>(query: { cursor?: string } & Record<string, unknown>): P | null {
  if (query.cursor === undefined) return null;
  let decoded: { f?: unknown; p?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ApiError('invalid_request', 'The cursor is not one this API issued.', { param: 'cursor' });
  }
  if (
    typeof decoded !== 'object' ||
    decoded === null ||
    decoded.p === undefined ||
    typeof decoded.f !== 'string'
  ) {
    throw new ApiError('invalid_request', 'The cursor is not one this API issued.', { param: 'cursor' });
  }
  if (decoded.f !== filterDigest(query)) {
    throw new ApiError(
      'invalid_request',
      'Send a cursor with the same filters as the request that returned it.',
      {
        param: 'cursor',
      },
    );
  }
  return decoded.p as P;
}

/**
 * One page from `rows` fetched with `limit + 1`: the extra row only tells that more exist.
 * `positionOf` gives the order key of the page's last item, from which the next page continues.
 */
export function toPage<T, P>(
  rows: readonly T[],
  query: { limit: number } & Record<string, unknown>,
  positionOf: (last: T) => P,
): List<T> {
  const data = rows.slice(0, query.limit);
  const last = data.at(-1);
  const hasMore = rows.length > query.limit && last !== undefined;
  return {
    object: 'list',
    data,
    has_more: hasMore,
    next_cursor: hasMore ? cursorAfter(query, positionOf(last)) : null,
  };
}

/** The cursor of the page after `position` (an item's order key), bound to the query's filters. */
export function cursorAfter(query: Record<string, unknown>, position: unknown): string {
  return Buffer.from(JSON.stringify({ f: filterDigest(query), p: position })).toString('base64url');
}

/*
 * The cursor of a list in keyset order (src/domain/shared/paging.ts) carries [list, sort key as ISO
 * timestamp, id] of the page's last item. The list's name keeps one list's cursor from being
 * misread by another with the same filters (a cursor of /areas sent to /tables); a position
 * that is not this list's, or not a millisecond timestamp and a UUID, is a 400 on `cursor`.
 */

/** The position a cursor of `list` carries after `item`. */
export function keysetPosition<K extends SortKey>(
  list: string,
  order: ListOrder<K>,
  item: { id: string } & Record<K, Date>,
): unknown {
  return [list, item[order.key].toISOString(), item.id];
}

const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function keysetPositionIn(list: string, position: unknown): PagePosition {
  if (Array.isArray(position) && position.length === 3) {
    const [name, at, id] = position as unknown[];
    const date = typeof at === 'string' && isoPattern.test(at) ? new Date(at) : null;
    if (name === list && date && !Number.isNaN(date.getTime()) && typeof id === 'string' && isUuid(id))
      return { at: date, id };
  }
  throw new ApiError('invalid_request', `The cursor is not one this API issued for /${list}.`, {
    param: 'cursor',
  });
}

/** A page whose items are JSON texts already: the list's body, composed without parsing them again. */
export function listJson<T>(page: List<T>, json: (item: T) => string): string {
  return `{"object":"list","data":[${page.data.map(json).join(',')}],"has_more":${page.has_more},"next_cursor":${JSON.stringify(page.next_cursor)}}`;
}

/**
 * One page of `list` in `order`: the cursor decoded and checked to be this list's, one row more
 * fetched than the page holds, and the next cursor made from the page's last item.
 */
export async function keysetPage<K extends SortKey, T extends { id: string } & Record<K, Date>>(
  list: string,
  order: ListOrder<K>,
  request: PageQuery & Record<string, unknown>,
  fetch: (page: Required<PageRange>) => Promise<T[]>,
): Promise<List<T>> {
  const query = { ...request, limit: request.limit ?? defaultPageSize };
  const position = pagePosition(query);
  const after = position === null ? null : keysetPositionIn(list, position);
  const rows = await fetch({ after, limit: query.limit + 1 });
  return toPage(rows, query, (last) => keysetPosition(list, order, last));
}
