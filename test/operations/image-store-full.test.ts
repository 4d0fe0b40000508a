/*
 * Issue 17, "a full disk on the image store": IMAGES_DIR on a real file system that fills up (a
 * 1 MiB tmpfs, mounted by the test; mounting needs root, as in CI). Menu images are not uploaded:
 * a product write names an image_url and Servery downloads it (during the request, or later in the
 * worker's job `menu-images`). With the disk full the write still succeeds and the image waits,
 * the job fails with a clear reason and stays due, no partial file is left, earlier images are
 * still served, and once there is room the image arrives.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { type AddressInfo, isIP, type LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import sharp from 'sharp';
import { hostedImages } from '../../src/adapters/hosted-images.ts';
import { LocalImageStore } from '../../src/adapters/image-store.ts';
import { OutboundHttpClient } from '../../src/adapters/outbound-http.ts';
import { imageUrlHash } from '../../src/domain/menu/menu-images.ts';
import { jobHandlers } from '../../src/worker/job-kinds.ts';
import { runDueJobs } from '../../src/worker/job-queue.ts';
import { buildTestApp, makeTenant, type TestApp } from '../harness.ts';
import { ok } from '../menu/menu-helpers.ts';

const fixtures = path.join(import.meta.dirname, '../menu/fixtures');
const cert = readFileSync(path.join(fixtures, 'images-test.cert.pem'), 'utf8');
const key = readFileSync(path.join(fixtures, 'images-test.key.pem'), 'utf8');

/** Mounts a tmpfs of 1 MiB; null when this machine does not let the test mount one (not root). */
function mountTinyDisk(): string | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'servery-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

const disk = mountTinyDisk();
const skip = disk ? false : 'cannot mount a tmpfs here (needs root): no real full disk to test on';

/** The outside world: `/<colour>.jpg` a photo of that colour (distinct bytes, so distinct keys). */
const server = createServer({ cert, key }, (request, response) => {
  const colour = /^\/([0-9a-f]{6})\.jpg$/.exec(request.url ?? '')?.[1];
  if (!colour) return response.writeHead(404).end();
  void sharp({ create: { width: 800, height: 500, channels: 3, background: `#${colour}` } })
    .jpeg()
    .toBuffer()
    .then((bytes) => response.writeHead(200, { 'content-type': 'image/jpeg' }).end(bytes));
});
/** Every name is this machine (the test server). */
const lookup: LookupFunction = (_hostname, _options, callback) =>
  callback(null, [{ address: '127.0.0.1', family: isIP('127.0.0.1') }]);

let t: TestApp;
let base = '';
const store = new LocalImageStore(disk ?? tmpdir());
const fetcher = hostedImages({
  store,
  http: new OutboundHttpClient({ allowLoopback: true, lookup, ca: cert }),
  userAgent: 'Servery-Images/test',
});

before(async () => {
  if (skip) return;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://images.test:${(server.address() as AddressInfo).port}`;
  t = await buildTestApp({ images: { store, fetcher } });
});
after(async () => {
  await t?.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (disk) {
    execFileSync('umount', [disk]);
    rmSync(disk, { recursive: true, force: true });
  }
});

/** Fills the disk to the last byte with one file; returns its path. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const chunk = Buffer.alloc(4096, 1);
  let size = 0;
  for (;;) {
    try {
      writeFileSync(file, chunk, { flag: 'a' });
      size += chunk.length;
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
      assert.ok(size > 0);
      return file;
    }
  }
}

/** Every file under the store's directory, the filler left out. */
function storedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== 'filler')
    .map((entry) => entry.name)
    .sort();
}

test('a full image disk: the write succeeds, the image waits with a clear error, nothing half-written, nothing lost', {
  skip,
}, async () => {
  const dir = disk as string;
  const tenant = await makeTenant(t.ctx);
  const earlier = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'Margherita',
    price: 950,
    image_url: `${base}/cc3333.jpg`,
  });
  assert.equal(earlier.images.status, 'ready');
  const kept = storedFiles(dir);
  assert.equal(kept.length, 2, 'two sizes of the earlier image');

  const filler = fill(dir);
  const url = `${base}/33cc33.jpg`;
  const product = await ok(t, tenant.token, 'POST', '/menu/products', {
    name: 'Funghi',
    price: 1050,
    image_url: url,
  });
  // The product is written with its image_url; the image waits for the worker.
  assert.equal(product.image_url, url);
  assert.equal(product.images.status, 'pending');
  assert.equal(product.images.urls, null);
  assert.deepEqual(storedFiles(dir), kept, 'no partial file left, nothing else kept');

  // The worker's job fails with the reason, and stays due.
  const log = pino({ level: 'silent' });
  const runJobs = () =>
    runDueJobs(
      t.database.db,
      t.clock,
      { log, emailTransport: { send: async () => {} }, images: fetcher },
      jobHandlers,
    );
  await runJobs();
  const job = await t.database.db
    .selectFrom('jobs')
    .selectAll()
    .where('tenant_id', '=', tenant.restaurantId)
    .where('kind', '=', 'menu-images')
    .executeTakeFirstOrThrow();
  assert.equal(job.done_at, null);
  assert.equal(job.failed_at, null);
  assert.match(String(job.last_error), new RegExp(`not stored in ${dir}: the disk is full`));
  assert.deepEqual(storedFiles(dir), kept, 'no partial file left by the job');
  const image = await t.database.db
    .selectFrom('menu_images')
    .select(['status', 'error'])
    .where('tenant_id', '=', tenant.restaurantId)
    .where('url_hash', '=', imageUrlHash(url))
    .executeTakeFirstOrThrow();
  assert.deepEqual(image, { status: 'pending', error: null });

  // The earlier image is still served, byte for byte.
  for (const address of Object.values(earlier.images.urls) as string[]) {
    const res = await t.app.inject({ method: 'GET', url: address });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      res.rawPayload,
      readFileSync(path.join(dir, path.basename(address).slice(0, 2), path.basename(address))),
    );
  }

  // Room again: the retry (after its minute) stores the image, and the product shows it.
  rmSync(filler);
  t.clock.advance(60_000);
  await runJobs();
  const after = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
  assert.equal(after.images.status, 'ready');
  for (const address of Object.values(after.images.urls) as string[])
    assert.equal((await t.app.inject({ method: 'GET', url: address })).statusCode, 200);
  assert.equal(storedFiles(dir).length, 4);
});
