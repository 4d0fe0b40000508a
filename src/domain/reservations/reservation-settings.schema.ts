import Type, { type Static } from 'typebox';

const Uuid = Type.String({ format: 'uuid' });

const DurationRuleSchema = Type.Object(
  {
    max_party: Type.Union([Type.Integer({ minimum: 1, maximum: 200 }), Type.Null()], {
      description: 'Parties up to this size (null: every larger party; only the last rule).',
    }),
    minutes: Type.Integer({ minimum: 15, maximum: 600 }),
  },
  { additionalProperties: false },
);

/** A restaurant's booking settings as the dashboard shows and changes them. */
export const ReservationSettingsSchema = Type.Object(
  {
    object: Type.Literal('reservation_settings'),
    slot_minutes: Type.Integer({ description: 'Minutes between offered times (5 to 120).' }),
    durations: Type.Array(DurationRuleSchema, {
      description: 'Default duration by party size, ascending by max_party.',
    }),
    last_seating_minutes: Type.Integer({ description: 'Last offered time, minutes before closing.' }),
    guest_horizon_days: Type.Integer({ description: 'Guests book at most this many days ahead.' }),
    guest_lead_minutes: Type.Integer({ description: 'Guests book at least this many minutes ahead.' }),
    combinations: Type.Array(Type.Array(Uuid), {
      description: 'Sets of 2 to 4 tables that may be pushed together; a set seats the sum.',
    }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type ReservationSettings = Omit<Static<typeof ReservationSettingsSchema>, 'updated_at'> & {
  updated_at: Date;
};

export const ReservationSettingsPatchSchema = Type.Object(
  {
    slot_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 120 })),
    durations: Type.Optional(Type.Array(DurationRuleSchema, { minItems: 1, maxItems: 10 })),
    last_seating_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 600 })),
    guest_horizon_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
    guest_lead_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10080 })),
    combinations: Type.Optional(
      Type.Array(Type.Array(Uuid, { minItems: 2, maxItems: 4 }), { maxItems: 100 }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ReservationSettingsPatch = Static<typeof ReservationSettingsPatchSchema>;
