import type { Ctx } from '../../src/domain/shared/context.ts';
import type { Plan } from '../../src/domain/shared/scopes.ts';
import type { WeeklyWindow } from '../../src/domain/store/schedule.ts';
import { putStoreHours, upsertClosure } from '../../src/domain/store/store.service.ts';
import { createTable } from '../../src/domain/store/tables.service.ts';
import { makeTenant, type Tenant, type TestApp } from '../harness.ts';

/* What the reservation tests share: a restaurant with hours and tables, and moving the clock. */

export type BookingTenant = Tenant & { ctx: Ctx };

/** Every day 12:00–22:00 (Europe/Berlin, makeTenant's zone). */
export const everyDayNoonToTen: WeeklyWindow[] = [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({
  weekday,
  open: '12:00',
  close: '22:00',
}));

export async function bookingTenant(
  t: TestApp,
  options: { plan?: Plan; livemode?: boolean; hours?: WeeklyWindow[]; alwaysOpen?: boolean } = {},
): Promise<BookingTenant> {
  const tenant = await makeTenant(t.ctx, {
    plan: options.plan ?? 'pro',
    ...(options.livemode !== undefined && { livemode: options.livemode }),
  });
  const ctx: Ctx = { ...t.ctx, tenantId: tenant.restaurantId };
  await putStoreHours(
    ctx,
    options.alwaysOpen ? { always_open: true } : { opening_hours: options.hours ?? everyDayNoonToTen },
  );
  return { ...tenant, ctx };
}

export async function addTable(
  tenant: BookingTenant,
  fields: {
    label?: string;
    seats?: number | null;
    min_party?: number | null;
    bookable_online?: boolean;
  } = {},
): Promise<string> {
  const table = await createTable(tenant.ctx, { label: fields.label ?? 'T', ...fields });
  return table.id;
}

export async function specialDay(
  tenant: BookingTenant,
  date: string,
  hours: { open: string; close: string }[] | 'closed',
): Promise<void> {
  await upsertClosure(
    tenant.ctx,
    hours === 'closed' ? { date, closed: true } : { date, closed: false, hours },
  );
}

/** Sets the test clock to `at`. */
export function setClock(t: TestApp, at: string): void {
  t.clock.advance(new Date(at).getTime() - t.clock.now().getTime());
}
