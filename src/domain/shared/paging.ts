import { type SelectQueryBuilder, sql } from 'kysely';

/*
 * Keyset paging, the query's half (the cursor is the http half, src/http/shared/pagination.ts):
 * - a list is ordered by one time column, ascending or descending, then by id in the same
 *   direction, so the order is total even where many rows share a time;
 * - a page continues strictly beyond the last item's (key, id), never at an offset, so rows
 *   inserted between pages make no item of the list be repeated or lost.
 */

export type SortKey = 'created_at' | 'updated_at' | 'starts_at';

export interface ListOrder<K extends SortKey = SortKey> {
  key: K;
  direction: 'asc' | 'desc';
}

/** Tables and areas: oldest first (ids are time-ordered, so rows of one millisecond keep their order). */
export const creationOrder: ListOrder<'created_at'> = { key: 'created_at', direction: 'asc' };

/** Where a page starts: beyond the item whose sort key is `at` and id is `id`. */
export interface PagePosition {
  at: Date;
  id: string;
}

/** Which rows a page holds: those beyond `after` (all for the first page), up to `limit` or all. */
export interface PageRange {
  after: PagePosition | null;
  limit?: number;
}

/** `query` in `order`, cut to `page`; `table` qualifies the key and id columns (a join's alias). */
export function inPageOrder<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  order: ListOrder,
  page: PageRange,
  table?: string,
): SelectQueryBuilder<DB, TB, O> {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  const key = column(order.key);
  const id = column('id');
  let paged = query;
  if (page.after !== null) {
    const beyond = sql.raw(order.direction === 'asc' ? '>' : '<');
    paged = paged.where(sql<boolean>`(${key}, ${id}) ${beyond} (${page.after.at}, ${page.after.id})`);
  }
  paged = paged.orderBy(key, order.direction).orderBy(id, order.direction);
  return page.limit === undefined ? paged : paged.limit(page.limit);
}
