import { ApiError } from '../errors.ts';
import { isUuid } from '../ids.ts';

/*
 * Tables and areas are listed in creation order: by created_at, then id (ids are time-ordered,
 * so rows created in the same millisecond keep their order). A page continues after the last
 * item's (created_at, id). The position a cursor carries names its list, so a cursor of
 * /areas sent to /tables (neither has filters to bind it) is refused rather than misread.
 */

export type CreationList = 'tables' | 'areas';

/** Where the next page starts: after the item created at `createdAt` with `id`. */
export interface CreationPosition {
  createdAt: Date;
  id: string;
}

/** The position of a listed item, as a cursor carries it. */
export function creationPositionOf(list: CreationList, item: { id: string; created_at: Date }): unknown {
  return [list, item.created_at.toISOString(), item.id];
}

const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A position decoded from a cursor; anything but one this list issued is a 400 on `cursor`. */
export function creationPosition(list: CreationList, position: unknown): CreationPosition {
  if (Array.isArray(position) && position.length === 3) {
    const [name, at, id] = position as unknown[];
    const createdAt = typeof at === 'string' && isoPattern.test(at) ? new Date(at) : null;
    if (
      name === list &&
      createdAt &&
      !Number.isNaN(createdAt.getTime()) &&
      typeof id === 'string' &&
      isUuid(id)
    )
      return { createdAt, id };
  }
  throw new ApiError('invalid_request', `The cursor is not one this API issued for /${list}.`, {
    param: 'cursor',
  });
}
