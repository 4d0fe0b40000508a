import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { ok, request } from '../menu/menu-helpers.ts';
import { eventually } from '../waiting.ts';

/*
 * A write the database ends to break a deadlock is run again, not answered 500: a request and
 * another transaction (the test's own connection) each wait for what the other holds; PostgreSQL
 * breaks the cycle by ending the request's transaction (the other one waits an hour before it
 * looks for deadlocks), and the request, run again, succeeds once the other commits. Needs a
 * server: PGlite runs one connection at a time (DATABASE_URL set; on Citus the nodes find
 * deadlocks across them by their own rules).
 */
const skip =
  process.env.DATABASE_URL && !process.env.CITUS_URL ? false : 'runs with PostgreSQL (DATABASE_URL set)';

let t: TestApp;
before(async () => {
  if (!skip) t = await buildTestApp();
});
after(() => t?.close());

test('a product change the database ends in a deadlock is run again and answers 200', { skip }, async () => {
  const tenant = await makeTenant(t.ctx);
  const category = await ok(t, tenant.token, 'POST', '/menu/categories', { name: 'Pizza' });
  const product = await ok(t, tenant.token, 'POST', '/menu/products', {
    category_id: category.id,
    name: 'Margherita',
    price: 950,
  });
  const other = new pg.Client({ connectionString: t.database.url ?? '' });
  await other.connect();
  // The request's side looks for a deadlock 1 s after it starts waiting, once: it breaks this one
  // when the cycle is there by then. On a machine too busy for that, the other side finds it 3 s
  // after it started waiting and is ended instead; then the request is not what broke, and the test
  // makes the deadlock again.
  await other.query("SET deadlock_timeout = '3s'");
  try {
    for (let price = 1000; ; price += 10) {
      await other.query('BEGIN');
      // The other transaction holds the product's row; the request takes the menu lock, then waits for the row.
      await other.query('SELECT 1 FROM menu_products WHERE id = $1 FOR UPDATE', [product.id]);
      const change = request(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, { price });
      await eventually('the request waits for the product’s row', async () => {
        const waiting = await other.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
        );
        return waiting.rowCount === 1;
      });
      // Now the other transaction asks for the menu lock the request holds: a deadlock.
      const otherEnded = await other
        .query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `servery.menu:${tenant.restaurantId}`,
        ])
        .then(
          () => false,
          (error: { code?: string }) => {
            if (error.code !== '40P01') throw error;
            return true;
          },
        );
      await other.query(otherEnded ? 'ROLLBACK' : 'COMMIT');
      const res = await change;
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().price, price);
      if (otherEnded) continue;
      // The request's transaction was the one ended, and was run again.
      const stored = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
      assert.equal(stored.price, price);
      return;
    }
  } finally {
    await other.end();
  }
});
