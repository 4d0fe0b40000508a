import type { DurationRule } from '../../db/schema.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { ReservationSettings, ReservationSettingsPatch } from './reservation-settings.schema.ts';

/*
 * A restaurant's booking settings (every restaurant has a row, with the defaults of migration
 * 0023 until an owner changes them) and the combinations of tables it allows.
 */

export async function getReservationSettings(ctx: Ctx): Promise<ReservationSettings> {
  const tenantId = tenantOf(ctx);
  const row = await ctx.db
    .selectFrom('reservation_settings')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  const combinations = await ctx.db
    .selectFrom('reservation_combinations')
    .select('table_ids')
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return {
    object: 'reservation_settings',
    slot_minutes: row.slot_minutes,
    durations: row.durations,
    last_seating_minutes: row.last_seating_minutes,
    guest_horizon_days: row.guest_horizon_days,
    guest_lead_minutes: row.guest_lead_minutes,
    combinations: combinations.map((c) => c.table_ids),
    updated_at: row.updated_at,
  };
}

/** The minutes a party holds its table by default: the first rule whose max_party it fits. */
export function defaultDuration(durations: readonly DurationRule[], partySize: number): number {
  const rule = durations.find((r) => r.max_party === null || partySize <= r.max_party);
  return (rule ?? (durations.at(-1) as DurationRule)).minutes;
}

/**
 * Durations ascend strictly by max_party and cover every party: only the last rule has max_party
 * null (400 on `durations` otherwise).
 */
function checkDurations(durations: readonly DurationRule[]): void {
  durations.forEach((rule, index) => {
    const last = index === durations.length - 1;
    const previous = durations[index - 1]?.max_party;
    const wrong =
      (last && rule.max_party !== null) ||
      (!last && rule.max_party === null) ||
      (rule.max_party !== null && previous != null && rule.max_party <= previous);
    if (wrong)
      throw new ApiError(
        'invalid_request',
        'Durations ascend by max_party; the last rule, and only it, has max_party null (every larger party).',
        { param: `durations[${index}].max_party` },
      );
  });
}

/** Each combination: distinct tables of this restaurant, and no set given twice (400 on the set). */
async function checkCombinations(ctx: Ctx, combinations: readonly string[][]): Promise<void> {
  const tables = new Set(
    (
      await ctx.db.selectFrom('store_tables').select('id').where('tenant_id', '=', tenantOf(ctx)).execute()
    ).map((t) => t.id),
  );
  const seen = new Set<string>();
  combinations.forEach((ids, index) => {
    const param = `combinations[${index}]`;
    if (new Set(ids).size !== ids.length)
      throw new ApiError('invalid_request', 'A combination names each table once.', { param });
    const unknown = ids.find((id) => !tables.has(id));
    if (unknown !== undefined)
      throw new ApiError('invalid_request', `This restaurant has no table ${unknown}.`, { param });
    const key = [...ids].sort().join(',');
    if (seen.has(key)) throw new ApiError('invalid_request', 'This combination is given twice.', { param });
    seen.add(key);
  });
}

/** Changes the sent settings; `combinations` replaces the whole list. */
export async function updateReservationSettings(
  ctx: Ctx,
  patch: ReservationSettingsPatch,
): Promise<ReservationSettings> {
  const tenantId = tenantOf(ctx);
  const now = ctx.clock.now();
  if (patch.durations) checkDurations(patch.durations);
  if (patch.combinations) await checkCombinations(ctx, patch.combinations);
  const { combinations, durations, ...plain } = patch;
  await ctx.db
    .updateTable('reservation_settings')
    .set({ ...plain, ...(durations && { durations: JSON.stringify(durations) }), updated_at: now })
    .where('tenant_id', '=', tenantId)
    .execute();
  if (combinations) {
    await ctx.db.deleteFrom('reservation_combinations').where('tenant_id', '=', tenantId).execute();
    if (combinations.length > 0)
      await ctx.db
        .insertInto('reservation_combinations')
        .values(
          combinations.map((table_ids, index) => ({
            tenant_id: tenantId,
            id: newId(),
            table_ids,
            created_at: new Date(now.getTime() + index),
          })),
        )
        .execute();
  }
  return getReservationSettings(ctx);
}
