import Type, { type Static } from 'typebox';
import { Timestamp } from '../shared/common.schema.ts';

/** Longest note of a refresh request (decisions: menu.refresh_requested). */
export const maxRefreshNote = 500;

/** What `menu.refresh_requested` carries as `data.object` (decisions: Additions beyond the spec). */
export const MenuRefreshRequestSchema = Type.Object(
  {
    object: Type.Literal('menu_refresh_request'),
    requested_at: Timestamp,
    note: Type.Union([Type.String(), Type.Null()], {
      description: 'What the owner adds for the apps (at most 500 characters), or null.',
    }),
  },
  { additionalProperties: false },
);
export type MenuRefreshRequest = Static<typeof MenuRefreshRequestSchema>;

/** The owner's request from the dashboard: an optional note. */
export const MenuRefreshInputSchema = Type.Object(
  { note: Type.Optional(Type.Union([Type.String({ maxLength: maxRefreshNote }), Type.Null()])) },
  { additionalProperties: false },
);
export type MenuRefreshInput = Static<typeof MenuRefreshInputSchema>;
