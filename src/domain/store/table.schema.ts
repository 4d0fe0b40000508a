import Type, { type Static } from 'typebox';
import { nullable, Timestamp } from '../shared/common.schema.ts';

/** Longest table label and area name; party sizes and seats (spec: party_size 1 to 200). */
export const maxLabel = 40;
export const maxAreaName = 80;
export const maxPartySize = 200;

/** No control characters (a label is printed on one line; blank ones are refused by the services). */
const visibleText = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[^\\p{Cc}]*$' });
const PartySize = Type.Integer({ minimum: 1, maximum: maxPartySize });

/** The Table resource (spec: Table), as GET /tables shows it; never its QR key. */
export const TableSchema = Type.Object(
  {
    object: Type.Literal('table'),
    id: Type.String({ format: 'uuid' }),
    label: Type.String({
      description: 'The name staff and guests know the table by, e.g. `12` or `Terrace 3`.',
    }),
    seats: Type.Integer({
      minimum: 1,
      maximum: maxPartySize,
      description:
        'Seats at the table; the restaurant’s default table size when the table has none of its own.',
    }),
    area_id: nullable(Type.String({ format: 'uuid', description: 'The area the table is in.' })),
    bookable_online: Type.Boolean({
      description:
        'Whether guests may book it online (also its area must be). Staff and the API may always book it.',
    }),
    min_party: nullable(
      Type.Integer({
        minimum: 1,
        maximum: maxPartySize,
        description: 'Given only to parties of at least this size.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Table = Static<typeof TableSchema>;

/** The Area resource (spec: Area). */
export const AreaSchema = Type.Object(
  {
    object: Type.Literal('area'),
    id: Type.String({ format: 'uuid' }),
    name: Type.String({ description: 'e.g. `Dining room`, `Terrace`.' }),
    bookable_online: Type.Boolean({
      description:
        'Whether the area’s tables may be booked online at all (each table also has its own setting).',
    }),
  },
  { additionalProperties: false },
);
export type Area = Static<typeof AreaSchema>;

/** A table as its restaurant's owners see it in the dashboard: with its QR key and own size. */
export const DashboardTableSchema = Type.Object(
  {
    ...TableSchema.properties,
    seats_is_default: Type.Boolean(),
    qr_key: Type.String(),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export type DashboardTable = Static<typeof DashboardTableSchema>;

export const DashboardAreaSchema = Type.Object(
  { ...AreaSchema.properties, created_at: Timestamp },
  { additionalProperties: false },
);
export type DashboardArea = Static<typeof DashboardAreaSchema>;

/** What a dashboard or CLI write sends; on a change only the sent fields change (null clears). */
export const TableInputSchema = Type.Object(
  {
    label: visibleText(maxLabel),
    seats: Type.Optional(nullable(PartySize)),
    area_id: Type.Optional(nullable(Type.String({ format: 'uuid' }))),
    bookable_online: Type.Optional(Type.Boolean()),
    min_party: Type.Optional(nullable(PartySize)),
  },
  { additionalProperties: false },
);
export type TableInput = Static<typeof TableInputSchema>;
export const TablePatchSchema = Type.Partial(TableInputSchema, { additionalProperties: false });
export type TablePatch = Static<typeof TablePatchSchema>;

export const AreaInputSchema = Type.Object(
  { name: visibleText(maxAreaName), bookable_online: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type AreaInput = Static<typeof AreaInputSchema>;
export const AreaPatchSchema = Type.Partial(AreaInputSchema, { additionalProperties: false });
export type AreaPatch = Static<typeof AreaPatchSchema>;

/** The answer of a delete (as the API's single-object deletes answer). */
export const DeletedSchema = <K extends 'table' | 'area'>(object: K) =>
  Type.Object(
    { object: Type.Literal(object), id: Type.String({ format: 'uuid' }), deleted: Type.Literal(true) },
    { additionalProperties: false },
  );
