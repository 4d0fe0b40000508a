import { CharacterSet, PrinterTypes, ThermalPrinter } from 'node-thermal-printer';
import {
  printingSettings,
  recordTicketPrint,
  type TicketFailure,
} from '../domain/orders/kitchen-printing.ts';
import { type KitchenTicket, kitchenTicket } from '../domain/orders/kitchen-ticket.ts';
import { ApiError } from '../domain/shared/errors.ts';
import type { JobHandler } from './job-queue.ts';

/*
 * Job kind `kitchen-ticket`: an accepted order's ticket, sent as ESC/POS over TCP to the
 * restaurant's network receipt printer (node-thermal-printer, as an Epson-compatible printer on
 * 80 mm paper, code page 858 for the accents of our five languages), cut at the end.
 * - The printer is reached within a few seconds (printerTimeoutMs) or not at all: a ticket
 *   printed minutes late confuses a kitchen, so a failed print is not retried by the queue; it is
 *   recorded on the order, whose card on the board says why and offers "Print again".
 * - A printer removed, or an order gone, meanwhile: nothing to print.
 */

/** How long a printer has to take the connection and the ticket. */
const defaultPrinterTimeoutMs = 3000;
/** Characters a line of font A on 80 mm paper (42 on the narrowest 80 mm printers). */
const lineWidth = 42;

/** What the card says of a failed print, from the socket's error. */
function failureOf(error: unknown): TicketFailure {
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unknownHost';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN') return 'unreachable';
  if (code === 'ETIMEDOUT' || (error instanceof Error && error.message === 'Socket timeout'))
    return 'noAnswer';
  return 'failed';
}

/** The ticket as ESC/POS: the code large, then the order's type, time, guest, items and note. */
function layOut(printer: ThermalPrinter, ticket: KitchenTicket): void {
  printer.alignCenter();
  printer.println(ticket.restaurant);
  printer.setTextQuadArea();
  printer.bold(true);
  printer.println(ticket.code);
  printer.bold(false);
  printer.setTextNormal();
  printer.setTextDoubleHeight();
  printer.println(ticket.type);
  printer.println(ticket.wanted);
  printer.setTextNormal();
  if (ticket.customer) printer.println(ticket.customer);
  printer.alignLeft();
  printer.drawLine();
  for (const item of ticket.items) {
    printer.setTextDoubleHeight();
    printer.bold(true);
    printer.println(`${item.quantity} x ${item.name}`);
    printer.bold(false);
    printer.setTextNormal();
    for (const option of item.options) printer.println(`    + ${option}`);
  }
  printer.drawLine();
  if (ticket.note) {
    printer.bold(true);
    printer.println(ticket.note);
    printer.bold(false);
    printer.drawLine();
  }
  printer.println(ticket.placed);
  printer.println(ticket.printed);
  printer.cut();
}

export const kitchenTicketJob: JobHandler<{ order_id: string }> = {
  failure: 'kitchen ticket not printed',
  maxAttempts: 1,
  run: async (payload, services, _job, ctx) => {
    const { printer } = await printingSettings(ctx);
    if (printer === null) return;
    let ticket: KitchenTicket;
    try {
      ticket = await kitchenTicket(ctx, payload.order_id);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return;
      throw error;
    }
    const device = new ThermalPrinter({
      type: PrinterTypes.EPSON,
      interface: `tcp://${printer.host}:${printer.port}`,
      width: lineWidth,
      characterSet: CharacterSet.PC858_EURO,
      options: { timeout: services.printerTimeoutMs ?? defaultPrinterTimeoutMs },
    });
    layOut(device, ticket);
    try {
      await device.execute();
    } catch (error) {
      await recordTicketPrint(ctx, payload.order_id, failureOf(error));
      throw error;
    }
    await recordTicketPrint(ctx, payload.order_id, null);
  },
};
