import { DateTime } from 'luxon';
import type { Ctx } from '../domain/shared/context.ts';
import { putStoreHours, updateStore, upsertClosure } from '../domain/store/store.service.ts';
import { setAccentColor } from '../domain/store/storefront-look.ts';
import { setStoreVatId } from '../domain/store/vat-id.ts';

/** What demoStore sets, for the demo's description. */
export const demoStoreSummary =
  'open Tue–Sun 11:30–14:30 and 17:30–22:30 (Fri, Sat to 23:30), closed on Mondays and 25 December, orders for later taken, delivery to three zones around 10115 Berlin';

/** The storefront's colour: a tomato red white text reads well on. */
const accentColor = '#9b2226';
const lunch = { open: '11:30', close: '14:30' };
const dinner = { open: '17:30', close: '22:30' };
const lateDinner = { open: '17:30', close: '23:30' };

/** Three zones around Torstraße 1 (10115 Berlin): nearer ones cheaper, with a lower minimum. */
const deliveryZones = [
  { name: 'Mitte', postal_codes: ['10115', '10117', '10119', '10178'], fee: 250, min_order: 1500 },
  {
    name: 'Prenzlauer Berg & Wedding',
    postal_codes: ['10405', '10435', '10437', '13347', '13353', '13355'],
    fee: 350,
    min_order: 2000,
  },
  { name: 'Friedrichshain & Kreuzberg', postal_codes: ['102*', '109*'], fee: 450, min_order: 2500 },
];

/*
 * A trattoria's store: lunch and dinner from Tuesday to Sunday, longer on Friday and Saturday
 * evenings, Monday closed; delivery in the evenings only; pickup and delivery with a minimum
 * order, and orders for later; three delivery zones with their fees; its contact, address and storefront colour; Christmas Eve with short hours and Christmas Day closed (the
 * next ones to come).
 */
export async function demoStore(ctx: Ctx, timezone: string): Promise<void> {
  await updateStore(ctx, {
    order_types: { pickup: true, delivery: true },
    preorders: true,
    lead_times: { pickup_minutes: 20, delivery_minutes: 45 },
    min_order: 1500,
    contact: { phone: '+49 30 1234567', email: 'ciao@trattoria-demo.example', website: null },
    address_line: '10115 Berlin, Torstraße 1',
    location: { lat: 52.5293, lon: 13.4012 },
    delivery_zones: deliveryZones,
  });
  await setAccentColor(ctx, accentColor);
  await setStoreVatId(ctx, 'DE 123456789');
  const tuesdayToSunday = [1, 2, 3, 4, 5, 6];
  await putStoreHours(ctx, {
    opening_hours: tuesdayToSunday.flatMap((weekday) => [
      { weekday, ...lunch },
      { weekday, ...(weekday === 4 || weekday === 5 ? lateDinner : dinner) },
    ]),
    delivery_hours: tuesdayToSunday.map((weekday) => ({ weekday, open: '18:00', close: '22:00' })),
  });
  const today = DateTime.fromJSDate(ctx.clock.now(), { zone: timezone }).startOf('day');
  const christmasEve = today.set({ month: 12, day: 24 });
  const year = christmasEve < today ? today.year + 1 : today.year;
  await upsertClosure(ctx, {
    date: `${year}-12-24`,
    closed: false,
    hours: [{ open: '11:30', close: '15:00' }],
    note: 'Christmas Eve: lunch only',
  });
  await upsertClosure(ctx, { date: `${year}-12-25`, closed: true, note: 'Merry Christmas' });
}
