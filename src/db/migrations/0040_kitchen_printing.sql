-- Kitchen tickets (docs/console-and-dashboard.md, "Kitchen tickets"): the owner's printing settings
-- on the store, and each order's print on its network receipt printer.
-- - stores.auto_print: the order board opens each newly accepted order's ticket for printing;
-- - stores.printer_host/printer_port: a receipt printer on the restaurant's network (ESC/POS over
--   TCP), both set or both null; every accepted order then queues a `kitchen-ticket` job;
-- - orders.ticket_printed_at: when the printer last took the ticket; ticket_print_error: why the
--   last attempt failed (cleared by a print that succeeds), shown on the board's card.
ALTER TABLE stores
  ADD COLUMN auto_print boolean NOT NULL DEFAULT false,
  ADD COLUMN printer_host text,
  ADD COLUMN printer_port integer;
ALTER TABLE orders ADD COLUMN ticket_printed_at timestamptz, ADD COLUMN ticket_print_error text;
