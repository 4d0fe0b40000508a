import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { jobs } from '../../src/worker/worker.ts';
import { buildTestApp, developerSession, newAccount, signInTo, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';
import { guest, type OrderingTenant, orderingTenant, pickupOrder, place } from './order-helpers.ts';

/*
 * Kitchen tickets over HTTP (docs/console-and-dashboard.md, "Kitchen tickets"): the printing page
 * (owners only; a refused host or port beside its field, nothing saved), the ticket's print view
 * (owners and staff, in the restaurant's language; another restaurant's order is 404), and the
 * network printer: an accepted order queues a job that the worker's queue sends as ESC/POS to a
 * local TCP server standing in for the printer; a printer that refuses or does not answer shows on
 * the board's card, and "Print again" (staff too; one job while one waits) prints it.
 */

const queueJob = jobs.find((job) => job.name === 'run queued jobs');
const log = pino({ level: 'silent' });
/** ESC/POS: GS V 0, a full cut. */
const cut = Buffer.from([0x1d, 0x56, 0x00]);

/** A receipt printer on a local port: every connection's bytes, once it closes. */
class FakePrinter extends EventEmitter {
  readonly tickets: Buffer[] = [];
  readonly server = net.createServer((socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => {
      this.tickets.push(Buffer.concat(chunks));
      this.emit('ticket');
    });
  });
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }
  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }
  /** Waits for the n-th ticket (its connection closed). */
  async ticket(n: number): Promise<Buffer> {
    while (this.tickets.length < n) await once(this, 'ticket');
    return this.tickets[n - 1] as Buffer;
  }
}

/**
 * A printer that does not answer: a process listening on a port whose queue of connections is full
 * and that never takes one (its event loop blocked), so a new connection is never set up.
 */
async function silentPrinter(): Promise<{ port: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer();
       s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         process.stdout.write(s.address().port + '\\n');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
       });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [chunk] = await once(child.stdout, 'data');
  const port = Number(String(chunk).trim());
  // Fills its queue (a backlog of 1 holds two connections).
  const fillers = [net.connect(port, '127.0.0.1'), net.connect(port, '127.0.0.1')];
  await Promise.all(fillers.map((socket) => once(socket, 'connect')));
  return {
    port,
    stop() {
      for (const socket of fillers) socket.destroy();
      child.kill();
    },
  };
}

describe('kitchen tickets', () => {
  let t: TestApp;
  const printer = new FakePrinter();
  before(async () => {
    await printer.start();
    t = await buildTestApp();
  });
  after(async () => {
    await t?.close();
    printer.server.close();
  });

  const get = (cookie: string, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

  /** Posts forms as the page does: its CSRF token (from `formPage`) and its cookies. */
  async function poster(cookie: string, formPage: string) {
    const form = await get(cookie, formPage);
    assert.equal(form.statusCode, 200, form.body);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const cookies = [cookie, ...form.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
    return (url: string, fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, lang: 'en', ...fields }).toString(),
      });
  }

  /**
   * Runs the worker's queue once, as the worker does. Printers get 2 s (the service's 3 s would
   * only slow the silent printer's test; much less could fail a local printer on a busy machine).
   */
  async function runQueue(): Promise<void> {
    assert.ok(queueJob);
    await queueJob.run(t.database.db, t.clock, {
      log,
      emailTransport: { send: async () => {} },
      printerTimeoutMs: 2000,
    });
  }

  const ticketJobs = (tenant: OrderingTenant) =>
    t.database.db
      .selectFrom('jobs')
      .select(['id', 'payload', 'done_at', 'failed_at'])
      .where('tenant_id', '=', tenant.restaurantId)
      .where('kind', '=', 'kitchen-ticket')
      .execute();

  /** A restaurant, its owner's session and the printing page's poster. */
  async function restaurant() {
    const tenant = await orderingTenant(t);
    const cookie = await developerSession(t, tenant, 'dashboard');
    const printing = `/dashboard/restaurants/${tenant.restaurantId}/printing`;
    const board = `/dashboard/restaurants/${tenant.restaurantId}/orders`;
    return { tenant, cookie, printing, board, post: await poster(cookie, printing) };
  }

  /** The card of the order on the board page. */
  async function cardOf(cookie: string, board: string, orderId: string): Promise<string> {
    const page = await get(cookie, board);
    assert.equal(page.statusCode, 200);
    const start = page.body.indexOf(`id="order-${orderId}"`);
    assert.ok(start > 0, 'the order is on the board');
    return page.body.slice(start, page.body.indexOf('</article>', start));
  }

  it('an accepted order prints on the network printer: code, items, note and a cut, in the restaurant’s language', async () => {
    const { tenant, cookie, printing, board, post } = await restaurant();
    await t.database.db
      .updateTable('restaurants')
      .set({ language: 'de' })
      .where('id', '=', tenant.restaurantId)
      .execute();
    const saved = await post(printing, { printer_host: '127.0.0.1', printer_port: String(printer.port) });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, `${printing}?done=saved`);
    const shown = await get(cookie, printing);
    assert.ok(shown.body.includes('value="127.0.0.1"'));
    assert.ok(shown.body.includes(`value="${printer.port}"`));

    const { order } = await place(
      t,
      tenant,
      pickupOrder(tenant, {
        customer: { name: 'Ada Lovelace', phone: '+49 30 1234567' },
        note: 'Ohne Zwiebeln',
      }),
    );
    assert.equal((await ticketJobs(tenant)).length, 0, 'a pending order prints nothing yet');
    await ok(t, tenant.token, 'POST', `/orders/${order.id}/accept`, { prep_minutes: 15 }, 200);
    assert.equal((await ticketJobs(tenant)).length, 1);
    assert.match(await cardOf(cookie, board, order.id), /Sending the ticket to the printer…/);

    const before = printer.tickets.length;
    await runQueue();
    const bytes = await printer.ticket(before + 1);
    const text = bytes.toString('latin1');
    assert.ok(text.includes(order.code), 'the code');
    assert.ok(text.includes('Abholung'), 'the type, in German');
    assert.ok(
      text.includes('Pizza') &&
        text.includes('Cheese') &&
        text.includes('Lemonade') &&
        text.includes('Large'),
    );
    assert.ok(text.includes('2 x Pizza'), 'the quantity');
    assert.ok(text.includes('Ada Lovelace'), 'the guest');
    assert.ok(text.includes('Hinweis: Ohne Zwiebeln'), 'the note');
    assert.ok(bytes.includes(cut), 'cut at the end');
    const [job] = await ticketJobs(tenant);
    assert.ok(job?.done_at, 'the job is done');
    const card = await cardOf(cookie, board, order.id);
    assert.match(card, /Ticket printed/);
    assert.doesNotMatch(card, /Ticket not printed/);
    // The public API's order is as it was: no ticket there.
    const apiOrder = await ok(t, tenant.token, 'GET', `/orders/${order.id}`);
    assert.equal(JSON.stringify(apiOrder).includes('ticket'), false);
  });

  it('a restaurant that does not use pending: an order prints as placed, an online one once paid', async () => {
    const { tenant, cookie, post } = await restaurant();
    const saved = await post(`/dashboard/restaurants/${tenant.restaurantId}/printing`, {
      printer_host: '127.0.0.1',
      printer_port: String(printer.port),
    });
    assert.equal(saved.statusCode, 303);
    const statuses = await t.app.inject({
      method: 'PATCH',
      url: `/dashboard/api/restaurants/${tenant.restaurantId}/store`,
      headers: { cookie, 'content-type': 'application/json' },
      payload: { order_statuses: ['confirmed', 'preparing', 'ready'] },
    });
    assert.equal(statuses.statusCode, 200, statuses.body);
    const { order } = await place(t, tenant, pickupOrder(tenant));
    assert.equal(order.status, 'confirmed');
    assert.deepEqual(
      (await ticketJobs(tenant)).map((job) => job.payload),
      [{ order_id: order.id }],
      'on site: printed as placed',
    );
    const online = await place(t, tenant, pickupOrder(tenant, { payment_method: 'online' }));
    assert.equal((await ticketJobs(tenant)).length, 1, 'online: nothing until paid');
    const started = await guest(t, tenant.slug, 'POST', `/orders/${online.guest_key}/payment`);
    assert.equal(started.statusCode, 200, started.body);
    const paid = await guest(t, tenant.slug, 'POST', `/orders/${online.guest_key}/payment/test`, {
      outcome: 'succeeded',
    });
    assert.equal(paid.statusCode, 200, paid.body);
    assert.deepEqual(
      (await ticketJobs(tenant)).map((job) => job.payload),
      [{ order_id: order.id }, { order_id: online.order.id }],
    );
    const before = printer.tickets.length;
    await runQueue();
    await printer.ticket(before + 2); // the two, in whichever order the queue sent them
    const printed = printer.tickets.slice(before).map((ticket) => ticket.toString('latin1'));
    for (const code of [order.code, online.order.code])
      assert.ok(
        printed.some((ticket) => ticket.includes(code)),
        `the ticket of ${code}`,
      );
  });

  it('no printer set: accepting queues no job; the print view still works', async () => {
    const { tenant, cookie, board } = await restaurant();
    const { order } = await place(t, tenant);
    await ok(t, tenant.token, 'POST', `/orders/${order.id}/accept`, {}, 200);
    assert.equal((await ticketJobs(tenant)).length, 0);
    const card = await cardOf(cookie, board, order.id);
    assert.match(card, new RegExp(`href="${board}/${order.id}/ticket"`));
    assert.doesNotMatch(card, /Ticket not printed|Sending the ticket/);
  });

  it('a printer that refuses, then one that does not answer: the card says why; Print again (staff too) prints, once while one waits', async () => {
    const { tenant, cookie, printing, board, post } = await restaurant();
    // A port nothing listens on: the printer refuses.
    const closed = net.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    assert.equal(
      (await post(printing, { printer_host: '127.0.0.1', printer_port: String(closedPort) })).statusCode,
      303,
    );

    const { order } = await place(t, tenant);
    await ok(t, tenant.token, 'POST', `/orders/${order.id}/accept`, {}, 200);
    await runQueue();
    let card = await cardOf(cookie, board, order.id);
    assert.match(card, /Ticket not printed: the printer refused the connection\./);
    assert.match(card, new RegExp(`action="${board}/${order.id}/print"`));
    const [failed] = await ticketJobs(tenant);
    assert.ok(failed?.failed_at, 'given up at once: no late ticket from the queue');

    // Staff press Print again, twice: one job waits.
    const staff = await newAccount(t, false);
    await t.database.db
      .insertInto('restaurant_members')
      .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
      .execute();
    const staffCookie = await signInTo(t.app, 'dashboard', staff.email);
    const staffPost = await poster(staffCookie, board);
    for (let press = 0; press < 2; press += 1) {
      const again = await staffPost(`${board}/${order.id}/print`, {});
      assert.equal(again.statusCode, 303);
      assert.equal(again.headers.location, `${board}?done=printQueued#order-${order.id}`);
    }
    assert.equal((await ticketJobs(tenant)).filter((job) => !job.done_at && !job.failed_at).length, 1);

    // The printer now does not answer: the card says so.
    const silent = await silentPrinter();
    try {
      assert.equal(
        (await post(printing, { printer_host: '127.0.0.1', printer_port: String(silent.port) })).statusCode,
        303,
      );
      await runQueue();
    } finally {
      silent.stop();
    }
    card = await cardOf(cookie, board, order.id);
    assert.match(card, /Ticket not printed: the printer did not answer\./);

    // The printer is back: Print again prints, and the card says so.
    assert.equal(
      (await post(printing, { printer_host: 'localhost', printer_port: String(printer.port) })).statusCode,
      303,
    );
    assert.equal((await staffPost(`${board}/${order.id}/print`, {})).statusCode, 303);
    const before = printer.tickets.length;
    await runQueue();
    assert.ok((await printer.ticket(before + 1)).toString('latin1').includes(order.code));
    card = await cardOf(cookie, board, order.id);
    assert.doesNotMatch(card, /Ticket not printed/);
    assert.match(card, /Ticket printed/);

    // Staff may not set the printer: the restaurant's 404, nothing changed.
    assert.equal((await get(staffCookie, printing)).statusCode, 404);
    const refused = await staffPost(printing, { printer_host: '10.0.0.9' });
    assert.equal(refused.statusCode, 404);
    const store = await t.database.db
      .selectFrom('stores')
      .select(['printer_host'])
      .where('tenant_id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    assert.equal(store.printer_host, 'localhost');
  });

  it('the printing page refuses a URL or a bad port beside their fields and saves nothing; a private address is fine', async () => {
    const { tenant, cookie, printing, post } = await restaurant();
    const refused = await post(printing, {
      printer_host: 'http://192.168.1.50',
      printer_port: '70000',
      auto_print: 'on',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(
      refused.body,
      /<p class="field-error" id="printer_host-error">Enter the printer’s IP address/,
    );
    assert.match(
      refused.body,
      /<p class="field-error" id="printer_port-error">Enter a port from 1 to 65535\./,
    );
    for (const host of ['192.168.1.50:9100', '999.1.1.1', 'printer/kitchen', '-bad.example'])
      assert.equal((await post(printing, { printer_host: host })).statusCode, 400, host);
    const store = () =>
      t.database.db
        .selectFrom('stores')
        .select(['auto_print', 'printer_host', 'printer_port'])
        .where('tenant_id', '=', tenant.restaurantId)
        .executeTakeFirstOrThrow();
    assert.deepEqual(await store(), { auto_print: false, printer_host: null, printer_port: null });

    assert.equal(
      (await post(printing, { printer_host: ' 192.168.1.50 ', printer_port: '', auto_print: 'on' }))
        .statusCode,
      303,
    );
    assert.deepEqual(await store(), { auto_print: true, printer_host: '192.168.1.50', printer_port: 9100 });
    assert.equal(
      (await post(printing, { printer_host: 'Kitchen-Printer.local', printer_port: '9101' })).statusCode,
      303,
    );
    assert.deepEqual(await store(), {
      auto_print: false,
      printer_host: 'kitchen-printer.local',
      printer_port: 9101,
    });
    // Emptied: no printer.
    assert.equal((await post(printing, { printer_host: '', printer_port: '9101' })).statusCode, 303);
    assert.deepEqual(await store(), { auto_print: false, printer_host: null, printer_port: null });
    const page = await get(cookie, printing);
    assert.match(page.body, /<h1>Printing<\/h1>/);
  });

  it('the board’s switch (owners): on and off; the board carries it for its script', async () => {
    const { cookie, board } = await restaurant();
    const post = await poster(cookie, board);
    assert.match((await get(cookie, board)).body, /data-auto-print="off"/);
    const on = await post(`${board}/auto-print`, { auto_print: 'on' });
    assert.equal(on.headers.location, `${board}?done=autoPrintOn`);
    const page = await get(cookie, `${board}?done=autoPrintOn`);
    assert.match(page.body, /data-auto-print="on"/);
    assert.match(page.body, /Tickets now print automatically\./);
    assert.match(page.body, /aria-pressed="true">Print tickets automatically</);
    assert.equal((await post(`${board}/auto-print`, { auto_print: 'sometimes' })).statusCode, 400);
    await post(`${board}/auto-print`, { auto_print: 'off' });
    assert.match((await get(cookie, board)).body, /data-auto-print="off"/);
  });

  it('the print view: owners and staff, in the restaurant’s language, framed only by our own pages; another restaurant’s order is 404', async () => {
    const { tenant, cookie, board } = await restaurant();
    const other = await restaurant();
    await t.database.db
      .updateTable('restaurants')
      .set({ language: 'fr' })
      .where('id', '=', tenant.restaurantId)
      .execute();
    const { order } = await place(
      t,
      tenant,
      pickupOrder(tenant, {
        items: [{ product_id: tenant.products.pizza, quantity: 3, option_ids: [tenant.options.olives] }],
        note: 'Bien cuite',
      }),
    );
    const { order: theirs } = await place(t, other.tenant);
    const view = await get(cookie, `${board}/${order.id}/ticket`);
    assert.equal(view.statusCode, 200);
    assert.ok(view.body.includes(`<p class="ticket-code">${order.code}</p>`));
    assert.ok(
      view.body.includes('<p class="ticket-type">À emporter</p>'),
      view.body.match(/ticket-type">[^<]*/)?.[0],
    );
    assert.ok(view.body.includes('3 ×</span> Pizza'));
    assert.ok(view.body.includes('+ Olives'));
    assert.ok(view.body.includes('Bien cuite'));
    assert.match(String(view.headers['content-security-policy']), /frame-ancestors 'self'/);
    assert.equal(view.headers['x-frame-options'], 'SAMEORIGIN');
    // Another restaurant's order, by the owner of this one: 404, and its code nowhere.
    const theirsView = await get(cookie, `${board}/${theirs.id}/ticket`);
    assert.equal(theirsView.statusCode, 404);
    assert.ok(!theirsView.body.includes(theirs.code));
    assert.equal((await get(cookie, `${board}/not-an-id/ticket`)).statusCode, 404);
    const post = await poster(cookie, board);
    assert.equal((await post(`${board}/${theirs.id}/print`, {})).statusCode, 404);
    // Staff see it too.
    const staff = await newAccount(t, false);
    await t.database.db
      .insertInto('restaurant_members')
      .values({ tenant_id: tenant.restaurantId, account_id: staff.id, role: 'staff' })
      .execute();
    const staffCookie = await signInTo(t.app, 'dashboard', staff.email);
    assert.equal((await get(staffCookie, `${board}/${order.id}/ticket`)).statusCode, 200);
    // Print again without a printer: the board says to set one.
    const again = await post(`${board}/${order.id}/print`, {});
    assert.equal(again.headers.location, `${board}?problem=noPrinter#order-${order.id}`);
  });
});
