import { type Locale, pickLocale, translator } from '../../i18n/i18n.ts';
import { formatDateTime } from '../../i18n/local-time.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { getOrder } from './orders.service.ts';

/*
 * An order's kitchen ticket: what the kitchen needs to make it, in the restaurant's language (that
 * of its staff's printer and its guests), every word and time ready to print. The dashboard's print
 * view (80 mm paper) and the network printer's ESC/POS (worker/kitchen-ticket.job.ts) print it,
 * each in its own way. No prices: a ticket is for the kitchen, the guest's receipt is elsewhere.
 */
export interface KitchenTicket {
  locale: Locale;
  restaurant: string;
  code: string;
  /** The order type, with the table for dine-in: `Dine-in · Table 4`. */
  type: string;
  /** `As soon as possible`, or `For <time>`. */
  wanted: string;
  customer: string | null;
  items: { quantity: number; name: string; options: string[] }[];
  /** `Note: …`, or null. */
  note: string | null;
  /** `Printed <time>`. */
  printed: string;
  /** `Placed <time>`. */
  placed: string;
}

/** The ticket of an order of ctx's restaurant (ApiError not_found for another's), printed now. */
export async function kitchenTicket(ctx: Ctx, orderId: string): Promise<KitchenTicket> {
  const order = await getOrder(ctx, orderId);
  const restaurant = await ctx.db
    .selectFrom('restaurants')
    .select(['name', 'language', 'timezone'])
    .where('id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  const locale = pickLocale([restaurant.language]);
  const t = translator(locale, 'kitchen');
  const time = (at: Date | string) => formatDateTime(at, restaurant.timezone, locale);
  const type = t(`type.${order.type}`);
  return {
    locale,
    restaurant: restaurant.name,
    code: order.code,
    type: order.table ? `${type} · ${t('table', { label: order.table.label ?? '' })}` : type,
    wanted: order.requested_for ? t('requestedFor', { time: time(order.requested_for) }) : t('asap'),
    customer: order.customer?.name ?? null,
    items: order.items.map((item) => ({
      quantity: item.quantity,
      name: item.name,
      options: item.options.map((option) => option.name),
    })),
    note: order.note ? t('note', { note: order.note }) : null,
    printed: t('ticket.printed', { time: time(ctx.clock.now()) }),
    placed: t('placed', { time: time(order.created_at) }),
  };
}
