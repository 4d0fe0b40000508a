import { recordEvent } from '../events/events.store.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { characterCount } from '../shared/text.ts';
import { type MenuRefreshInput, type MenuRefreshRequest, maxRefreshNote } from './menu-refresh.schema.ts';
import { isLive } from './menu-writes.ts';

/** Control characters but tabs and line breaks: a note may have several lines. */
const controlCharacter = /(?![\t\n\r])\p{Cc}/u;

/*
 * The note of a refresh request:
 * - trimmed; blank or absent is null;
 * - at most 500 characters, no control characters but tabs and line breaks (else 400 on `note`).
 */
function checkedNote(value: string | null | undefined): string | null {
  const note = value?.trim() ?? '';
  if (note === '') return null;
  if (characterCount(note) > maxRefreshNote)
    throw new ApiError('invalid_request', `note has at most ${maxRefreshNote} characters.`, {
      param: 'note',
    });
  if (controlCharacter.test(note))
    throw new ApiError('invalid_request', 'note must not contain control characters.', { param: 'note' });
  return note;
}

/**
 * The owner asks the restaurant's connected apps for a fresh menu sync: records
 * `menu.refresh_requested` (in `menu.*`, so apps with `menu:read` see it). Nothing else changes.
 */
export async function requestMenuRefresh(ctx: Ctx, input: MenuRefreshInput): Promise<MenuRefreshRequest> {
  const tenantId = tenantOf(ctx);
  const request: MenuRefreshRequest = {
    object: 'menu_refresh_request',
    requested_at: ctx.clock.now(),
    note: checkedNote(input.note),
  };
  const livemode = await isLive(ctx);
  await recordEvent(ctx, {
    tenantId,
    type: 'menu.refresh_requested',
    connectionId: null,
    livemode,
    data: { object: request },
  });
  return request;
}
