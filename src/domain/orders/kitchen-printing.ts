import { isIP } from 'node:net';
import { sql } from 'kysely';
import { enqueueJob } from '../jobs/jobs.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';

/*
 * Kitchen tickets (docs/console-and-dashboard.md, "Kitchen tickets"): the owner's printing settings
 * and each order's print on the restaurant's network receipt printer.
 * - The printer is a host name or an IPv4 address and a port (9100 unless told): private
 *   addresses are allowed, the printer being on the restaurant's own network; a URL is not a host.
 * - Every order accepted while a printer is set queues one `kitchen-ticket` job in the transaction
 *   of the move (worker/kitchen-ticket.job.ts sends it); printing again queues one too, but never a
 *   second while one is waiting, so pressing the button twice prints once.
 * - The outcome is kept on the order (last printed, or why it failed) for the board's card; it is
 *   none of the public API's: the Order stays as it was.
 */

export const defaultPrinterPort = 9100;
const maxHostLength = 253;

/** The owner's printing settings: the board's automatic printing and the network printer. */
export interface PrintingSettings {
  auto_print: boolean;
  printer: { host: string; port: number } | null;
}

/** An order's ticket on the network printer, as the board's card shows it. */
export interface TicketState {
  printed_at: Date | null;
  /** Why the last print failed (a code of ticketFailures), or null. */
  error: string | null;
  /** A print is waiting for the worker. */
  queued: boolean;
}

/** Why a ticket was not printed: what the board's card says (kitchen.json `ticket.failures`). */
export const ticketFailures = ['refused', 'noAnswer', 'unknownHost', 'unreachable', 'failed'] as const;
export type TicketFailure = (typeof ticketFailures)[number];

export async function printingSettings(ctx: Ctx): Promise<PrintingSettings> {
  const row = await ctx.db
    .selectFrom('stores')
    .select(['auto_print', 'printer_host', 'printer_port'])
    .where('tenant_id', '=', tenantOf(ctx))
    .executeTakeFirstOrThrow();
  return {
    auto_print: row.auto_print,
    printer:
      row.printer_host === null
        ? null
        : { host: row.printer_host, port: row.printer_port ?? defaultPrinterPort },
  };
}

/** A host name (letters, digits, dashes, dotted) or an IPv4 address: no scheme, port or path. */
function isPrinterHost(host: string): boolean {
  if (host.length > maxHostLength) return false;
  if (isIP(host) === 4) return true;
  // Not all digits and dots: 999.1.1.1 is no address, and no name either.
  return (
    !/^[\d.]+$/.test(host) &&
    host.split('.').every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(label))
  );
}

/** What the owner sets on the printing page. */
export interface PrintingInput {
  auto_print: boolean;
  printer_host: string | null;
  printer_port: number | null;
}

const hostOf = (input: PrintingInput) => input.printer_host?.trim().toLowerCase() || null;

/**
 * The refused fields of the input, in the form's order: a host that is not a host name or IPv4
 * address; with a host, a port that is not 1 to 65535 (none: 9100).
 */
export function refusedPrintingFields(input: PrintingInput): ('printer_host' | 'printer_port')[] {
  const host = hostOf(input);
  const port = input.printer_port ?? defaultPrinterPort;
  return [
    ...(host !== null && !isPrinterHost(host) ? (['printer_host'] as const) : []),
    ...(host !== null && (!Number.isInteger(port) || port < 1 || port > 65535)
      ? (['printer_port'] as const)
      : []),
  ];
}

/**
 * Sets them (the owner, on the printing page): a blank host is no printer (its port is then
 * ignored); a refused field is 400 `invalid_request` on it (the first, as refusedPrintingFields).
 */
export async function setPrintingSettings(ctx: Ctx, input: PrintingInput): Promise<void> {
  const [refused] = refusedPrintingFields(input);
  if (refused === 'printer_host')
    throw new ApiError(
      'invalid_request',
      'printer_host is the printer’s host name or IPv4 address, such as 192.168.1.50, without http:// or a port.',
      { param: refused },
    );
  if (refused === 'printer_port')
    throw new ApiError('invalid_request', 'printer_port is a whole number from 1 to 65535.', {
      param: refused,
    });
  const host = hostOf(input);
  await ctx.db
    .updateTable('stores')
    .set({
      auto_print: input.auto_print,
      printer_host: host,
      printer_port: host === null ? null : (input.printer_port ?? defaultPrinterPort),
    })
    .where('tenant_id', '=', tenantOf(ctx))
    .execute();
}

/** The board's switch: the board prints each newly accepted order's ticket, or not. */
export async function setAutoPrint(ctx: Ctx, on: boolean): Promise<void> {
  await ctx.db.updateTable('stores').set({ auto_print: on }).where('tenant_id', '=', tenantOf(ctx)).execute();
}

/** The kitchen-ticket jobs of these orders still waiting for the worker. */
function waitingPrints(ctx: Ctx, orderIds: readonly string[]) {
  return ctx.db
    .selectFrom('jobs')
    .select(sql<string>`payload->>'order_id'`.as('order_id'))
    .where('tenant_id', '=', tenantOf(ctx))
    .where('kind', '=', 'kitchen-ticket')
    .where('done_at', 'is', null)
    .where('failed_at', 'is', null)
    .where(sql<string>`payload->>'order_id'`, 'in', orderIds);
}

/**
 * Queues the order's ticket for the network printer, in the caller's transaction, when a printer is
 * set and no print of it is waiting already. Returns whether a print is now waiting.
 */
export async function queueKitchenTicket(ctx: Ctx, orderId: string): Promise<boolean> {
  const { printer } = await printingSettings(ctx);
  if (printer === null) return false;
  const waiting = await waitingPrints(ctx, [orderId]).executeTakeFirst();
  if (waiting === undefined)
    await enqueueJob(ctx, 'kitchen-ticket', { order_id: orderId }, { tenantId: tenantOf(ctx) });
  return true;
}

/**
 * "Print again" on the board: the order's ticket queued again (404 for an order the restaurant
 * does not have; 400 `printer_host` when no printer is set any more).
 */
export async function printTicketAgain(ctx: Ctx, orderId: string): Promise<void> {
  if (!isUuid(orderId)) throw new ApiError('not_found', 'No such order.');
  const order = await ctx.db
    .selectFrom('orders')
    .select('id')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', orderId)
    .where('listed', '=', true)
    .executeTakeFirst();
  if (order === undefined) throw new ApiError('not_found', 'No such order.');
  if (!(await queueKitchenTicket(ctx, order.id)))
    throw new ApiError('invalid_request', 'No receipt printer is set.', { param: 'printer_host' });
}

/** The tickets of these orders (the board's cards): printed, failed, waiting. */
export async function ticketStates(ctx: Ctx, orderIds: readonly string[]): Promise<Map<string, TicketState>> {
  if (orderIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('orders')
    .select(['id', 'ticket_printed_at', 'ticket_print_error'])
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', 'in', orderIds)
    .execute();
  const waiting = new Set((await waitingPrints(ctx, orderIds).execute()).map((row) => row.order_id));
  return new Map(
    rows.map((row) => [
      row.id,
      { printed_at: row.ticket_printed_at, error: row.ticket_print_error, queued: waiting.has(row.id) },
    ]),
  );
}

/** The worker's outcome of a print: printed now (the error cleared), or why not. */
export async function recordTicketPrint(
  ctx: Ctx,
  orderId: string,
  failure: TicketFailure | null,
): Promise<void> {
  await ctx.db
    .updateTable('orders')
    .set(
      failure === null
        ? { ticket_printed_at: ctx.clock.now(), ticket_print_error: null }
        : { ticket_print_error: failure },
    )
    .where('tenant_id', '=', tenantOf(ctx))
    .where('id', '=', orderId)
    .execute();
}
