import type { Ctx } from '../domain/shared/context.ts';
import { createArea } from '../domain/store/areas.service.ts';
import type { TableInput } from '../domain/store/table.schema.ts';
import { createTable } from '../domain/store/tables.service.ts';

/** What demoFloor adds, for the demo's description. */
export const demoFloorSummary = '2 areas (Dining room, Terrace), 10 tables';

/*
 * A small trattoria's floor: a dining room with two-tops, four-tops at the default size and a
 * large table kept for parties of five or more; a terrace; a bar counter outside any area that
 * is not bookable online (walk-ins only).
 */
export async function demoFloor(ctx: Ctx): Promise<void> {
  const dining = await createArea(ctx, { name: 'Dining room' });
  const terrace = await createArea(ctx, { name: 'Terrace' });
  const tables: TableInput[] = [
    { label: '1', seats: 2, area_id: dining.id },
    { label: '2', seats: 2, area_id: dining.id },
    { label: '3', area_id: dining.id },
    { label: '4', area_id: dining.id },
    { label: '5', seats: 6, area_id: dining.id },
    { label: '6', seats: 10, area_id: dining.id, min_party: 5 },
    { label: 'T1', seats: 2, area_id: terrace.id },
    { label: 'T2', area_id: terrace.id },
    { label: 'T3', seats: 6, area_id: terrace.id },
    { label: 'Bar', seats: 4, bookable_online: false },
  ];
  for (const table of tables) await createTable(ctx, table);
}
