import {
  type CreationList,
  type CreationPosition,
  creationPosition,
  creationPositionOf,
} from '../domain/store/creation-order.ts';
import { type List, pagePosition, toPage } from './pagination.ts';

/**
 * One page of a list in creation order (tables, areas; the API's and the dashboard's): the
 * cursor decoded and checked to be this list's, one row more fetched than the page holds, and the
 * next cursor made from the page's last item.
 */
export async function creationPage<T extends { id: string; created_at: Date }>(
  list: CreationList,
  query: { limit: number; cursor?: string },
  fetch: (page: { after: CreationPosition | null; limit: number }) => Promise<T[]>,
): Promise<List<T>> {
  const position = pagePosition(query);
  const after = position === null ? null : creationPosition(list, position);
  const rows = await fetch({ after, limit: query.limit + 1 });
  return toPage(rows, query, (last) => creationPositionOf(list, last));
}
