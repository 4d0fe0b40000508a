import Type, { type Static } from 'typebox';
import { ExternalIdInput, SoldOutUntilInput } from './menu.schema.ts';

/** Entries of one `POST /menu/availability` (spec: Limits); more are a 422, checked by the service. */
export const maxAvailabilityEntries = 500;

const AvailabilityEntrySchema = Type.Object(
  {
    type: Type.Union([Type.Literal('product'), Type.Literal('option')], {
      description: 'What `id` or `external_id` names.',
      examples: ['option'],
    }),
    id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'The object’s id. Send exactly one of `id` and `external_id`.',
        examples: ['0199c3a1-7b40-7c1e-8a52-3f6d2e9b1d01'],
      }),
    ),
    external_id: Type.Optional({
      ...ExternalIdInput,
      description: 'Your app’s own external_id of the object (other apps’ values name nothing).',
      examples: ['opt-cheese'],
    }),
    available: Type.Boolean({
      description: 'false: sold out; true: on sale again (ends any sold-out time).',
      examples: [false],
    }),
    until: Type.Optional({
      ...SoldOutUntilInput,
      description:
        'With `available: false` only: back on sale by itself at this future instant (`unavailable_until`). ' +
        'Left out or null: sold out until put back.',
    }),
  },
  { additionalProperties: false },
);
export type AvailabilityEntry = Static<typeof AvailabilityEntrySchema>;

/** POST /menu/availability (decisions.md, Menu). No maxItems: over 500 entries is a 422, not a 400. */
export const AvailabilityInputSchema = Type.Object(
  {
    entries: Type.Array(AvailabilityEntrySchema, {
      description: `At most ${maxAvailabilityEntries} (more: 422 \`limit_exceeded\`); each object once.`,
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        entries: [
          { type: 'option', external_id: 'opt-cheese', available: false, until: '2030-06-01T16:00:00Z' },
        ],
      },
    ],
  },
);
export type AvailabilityInput = Static<typeof AvailabilityInputSchema>;

export const AvailabilityUpdateSchema = Type.Object(
  {
    object: Type.Literal('availability_update'),
    updated: Type.Integer({ minimum: 0, description: 'Entries that changed their object.', examples: [1] }),
    unchanged: Type.Integer({
      minimum: 0,
      description: 'Entries whose object already was so (its updated_at stays, no event).',
      examples: [0],
    }),
  },
  { additionalProperties: false },
);
export type AvailabilityUpdate = Static<typeof AvailabilityUpdateSchema>;
