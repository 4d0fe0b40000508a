import Type, { type Static } from 'typebox';
import { nullable, Timestamp } from '../shared/common.schema.ts';
import { LocalDate } from '../store/store.schema.ts';
import { reservationStatuses } from './reservation-status.ts';

/** Field limits (spec: Limits). */
export const reservationLimits = {
  guestName: 120,
  guestPhone: 40,
  guestEmail: 200,
  note: 500,
  tableIds: 10,
} as const;

const Id = Type.String({ format: 'uuid' });
const PartySize = Type.Integer({ minimum: 1, maximum: 200, examples: [4] });
const Duration = Type.Integer({ minimum: 15, maximum: 600, description: 'Minutes the table is held.' });
const Status = Type.Enum(reservationStatuses);
export const reservationLocales = ['de', 'en', 'fr', 'es', 'it'] as const;

export const ReservationSchema = Type.Object(
  {
    object: Type.Literal('reservation'),
    id: Id,
    code: Type.String({ description: 'Short code the guest sees.' }),
    status: Status,
    starts_at: Timestamp,
    duration_minutes: Type.Integer({ description: 'How long the table is held.' }),
    party_size: Type.Integer(),
    table_ids: Type.Array(Id, { description: 'Assigned tables; empty if none yet.' }),
    source: Type.Enum(['guest', 'staff', 'api']),
    guest_name: nullable(Type.String()),
    note: nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    // Set only in the event that reports a deletion.
    deleted_at: nullable(Timestamp),
  },
  { additionalProperties: false, description: 'Guest phone and e-mail are never returned.' },
);
export type Reservation = Static<typeof ReservationSchema>;

const startsAt = Type.String({
  format: 'date-time',
  description: 'One of the times `GET /reservations/availability` offers for that day.',
  examples: ['2030-06-04T16:00:00Z'],
});
const tableIds = Type.Array(Id, {
  maxItems: reservationLimits.tableIds,
  description:
    'Tables that must be free and seat the party together. Without: no tables yet (`table_ids` empty), but the booking is only accepted when a table is free for the party.',
});

export const ReservationInputSchema = Type.Object(
  {
    starts_at: startsAt,
    party_size: PartySize,
    guest_name: Type.String({
      minLength: 1,
      maxLength: reservationLimits.guestName,
      examples: ['Sam Example'],
    }),
    guest_phone: Type.Optional(
      Type.String({
        maxLength: reservationLimits.guestPhone,
        description: 'At least six digits; never returned.',
      }),
    ),
    guest_email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: reservationLimits.guestEmail,
        description: 'Never returned.',
      }),
    ),
    guest_locale: Type.Optional(
      Type.Enum(reservationLocales, { description: 'Default: the restaurant’s language.' }),
    ),
    note: Type.Optional(Type.String({ maxLength: reservationLimits.note })),
    duration_minutes: Type.Optional({
      ...Duration,
      description: 'Default: the restaurant’s duration for the party size.',
    }),
    table_ids: Type.Optional(tableIds),
    status: Type.Optional(Type.Enum(['confirmed', 'pending'], { description: 'Default confirmed.' })),
    notify_guest: Type.Optional(
      Type.Boolean({ description: 'Default true: e-mail the guest (needs guest_email).' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        starts_at: '2030-06-04T16:00:00Z',
        party_size: 2,
        guest_name: 'Sam Example',
        note: 'A window table if possible.',
      },
    ],
  },
);
export type ReservationInput = Static<typeof ReservationInputSchema>;

export const ReservationPatchSchema = Type.Object(
  {
    status: Type.Optional(Status),
    starts_at: Type.Optional(startsAt),
    party_size: Type.Optional(PartySize),
    duration_minutes: Type.Optional(Duration),
    table_ids: Type.Optional({
      ...tableIds,
      description:
        'Tables that must be free and seat the party together; empty: Servery assigns free tables that seat the party. Without it, the reservation keeps its tables while they are still free and seat it (else Servery assigns others), and one without tables stays without.',
    }),
    guest_name: Type.Optional(Type.String({ minLength: 1, maxLength: reservationLimits.guestName })),
    note: Type.Optional(nullable(Type.String({ maxLength: reservationLimits.note }))),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ status: 'seated' }] },
);
export type ReservationPatch = Static<typeof ReservationPatchSchema>;

export const AvailabilityQuerySchema = Type.Object(
  {
    date: {
      ...LocalDate,
      description: 'Restaurant-local date, from yesterday up to one year ahead.',
      // A fixed date, so the document is the same every day; the Postman collection sends today's.
      examples: ['2026-11-03'],
    },
    party_size: PartySize,
  },
  { additionalProperties: false },
);

export const AvailabilitySchema = Type.Object(
  {
    object: Type.Literal('availability'),
    date: Type.String({ format: 'date' }),
    party_size: Type.Integer(),
    duration_minutes: Type.Integer({ description: 'The restaurant’s default duration for the party.' }),
    timezone: Type.String(),
    slots: Type.Array(
      Type.Object(
        {
          starts_at: Timestamp,
          available: Type.Boolean({ description: 'A table is free for the party and the time is not past.' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
