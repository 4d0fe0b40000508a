import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import pino from 'pino';
import sharp from 'sharp';
import type { MenuImages } from '../../src/adapters/hosted-images.ts';
import { type ImageStore, ImageStoreError, LocalImageStore } from '../../src/adapters/image-store.ts';
import { imageUrlHash, takeImages } from '../../src/domain/menu/menu-images.ts';
import type { Ctx } from '../../src/domain/shared/context.ts';
import type { ImageFetcher } from '../../src/domain/shared/image-fetcher.ts';
import { jobHandlers } from '../../src/worker/job-kinds.ts';
import { runDueJobs } from '../../src/worker/job-queue.ts';
import { buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';
import { imageHostTls, testImageFetcher } from './image-host.ts';
import { assertError, ok } from './menu-helpers.ts';

/*
 * Menu images through the API on a real database: downloaded from a local https server (the test
 * certificate in fixtures/, names resolved by the test to loopback or to private addresses), checked,
 * resized, stored in a temporary directory and served at /images/<key>; the rest queued for the
 * worker's job, run here as the worker runs it.
 */

const photo = (background: string, width = 1600, height = 1000) =>
  sharp({ create: { width, height, channels: 3, background } })
    .jpeg()
    .withExif({ IFD0: { Copyright: 'secret metadata' } })
    .toBuffer();

/** A PNG that says it has 20000×20000 pixels (a decompression bomb), 65 bytes long. */
function pngBomb(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const frame = Buffer.alloc(8 + body.length);
    frame.writeUInt32BE(data.length);
    body.copy(frame, 4);
    frame.writeUInt32BE(crc32(body), 4 + body.length);
    return frame;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(20_000, 0);
  header.writeUInt32BE(20_000, 4);
  header[8] = 8;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(0))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Requests the image server got, by path. */
const requests = new Map<string, number>();
const countOf = (urlPath: string) => requests.get(urlPath) ?? 0;
let large: Buffer;
let small: Buffer;

/*
 * The outside world: `/photo/…` a 1600×1000 JPEG (with EXIF), `/small/…` a 300×200 PNG,
 * `/redirect/<n>/…` n redirects before the photo, `/to-private` a redirect to a private address,
 * `/huge` an endless image body, `/page` HTML, `/fake` text said to be a JPEG, `/bomb` the PNG
 * bomb, `/hang` no answer, anything else 404.
 */
const server = createServer(imageHostTls, (request, response: ServerResponse) => {
  const urlPath = request.url ?? '/';
  requests.set(urlPath, countOf(urlPath) + 1);
  const redirect = /^\/redirect\/(\d+)\/(.*)$/.exec(urlPath);
  if (redirect) {
    const left = Number(redirect[1]);
    const next = left > 1 ? `/redirect/${left - 1}/${redirect[2]}` : `/photo/${redirect[2]}`;
    return response.writeHead(302, { location: next }).end();
  }
  if (urlPath.startsWith('/photo/'))
    return response.writeHead(200, { 'content-type': 'image/jpeg' }).end(large);
  if (urlPath.startsWith('/small/'))
    return response.writeHead(200, { 'content-type': 'image/png' }).end(small);
  if (urlPath === '/to-private')
    return response.writeHead(302, { location: 'https://10.0.0.7/photo/x.jpg' }).end();
  if (urlPath === '/page') return response.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>');
  if (urlPath === '/fake') return response.writeHead(200, { 'content-type': 'image/jpeg' }).end('hello');
  if (urlPath === '/bomb') return response.writeHead(200, { 'content-type': 'image/png' }).end(pngBomb());
  if (urlPath === '/hang') return;
  if (urlPath === '/huge') {
    response.writeHead(200, { 'content-type': 'image/jpeg' });
    const chunk = Buffer.alloc(64 * 1024, 1);
    const more = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', more);
    };
    return more();
  }
  response.writeHead(404).end();
});

let base = '';
let imagesDir = '';
let fetcher: ImageFetcher;
let t: TestApp;
const log = pino({ level: 'silent' });

before(async () => {
  [large, small] = await Promise.all([
    photo('#c33'),
    sharp({ create: { width: 300, height: 200, channels: 3, background: '#3c3' } })
      .png()
      .toBuffer(),
  ]);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://images.test:${(server.address() as AddressInfo).port}`;
  imagesDir = mkdtempSync(path.join(tmpdir(), 'servery-images-'));
  const store = new LocalImageStore(imagesDir);
  fetcher = testImageFetcher(store);
  const images: MenuImages = { store, fetcher };
  t = await buildTestApp({ images });
});
after(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(imagesDir, { recursive: true, force: true });
});

const productWith = (tenant: Tenant, imageUrl: string, name = 'Margherita') =>
  ok(t, tenant.token, 'POST', '/menu/products', { name, price: 950, image_url: imageUrl });

/** A whole-menu sync of products with these images. */
const syncImages = (tenant: Tenant, urls: readonly string[], dryRun = false) =>
  ok(t, tenant.token, 'PUT', '/menu', {
    mode: 'merge',
    dry_run: dryRun,
    products: urls.map((url, i) => ({
      external_id: `p-${i}`,
      name: `Product ${i}`,
      price: 100,
      image_url: url,
    })),
  });

/** Runs the job queue once, as the worker does, with the given downloader. */
const runJobs = (images: ImageFetcher = fetcher) =>
  runDueJobs(t.database.db, t.clock, { log, emailTransport: { send: async () => {} }, images }, jobHandlers);

const tenantCtx = (tenant: Tenant, images?: ImageFetcher): Ctx => ({
  ...t.ctx,
  tenantId: tenant.restaurantId,
  images,
});

describe('a product’s image', () => {
  test('is downloaded by the write, resized to WebP without metadata and served with a year’s caching', async () => {
    const tenant = await makeTenant(t.ctx);
    const url = `${base}/photo/margherita.jpg`;
    const product = await productWith(tenant, url);
    assert.equal(product.image_url, url);
    assert.equal(product.images.status, 'ready');
    assert.equal(product.images.error, null);
    assert.match(product.images.urls['400'], /^\/images\/[0-9a-f]{64}\.webp$/);
    for (const [width, height] of [
      [400, 250],
      [1200, 750],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url: product.images.urls[String(width)] });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'image/webp');
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      const etag = String(res.headers.etag);
      assert.match(etag, /^"[0-9a-f]{64}"$/);
      const served = await sharp(res.rawPayload).metadata();
      assert.deepEqual([served.format, served.width, served.height], ['webp', width, height]);
      assert.equal(served.exif, undefined);
      const again = await t.app.inject({
        method: 'GET',
        url: product.images.urls[String(width)],
        headers: { 'if-none-match': etag },
      });
      assert.equal(again.statusCode, 304);
    }
    assert.equal(countOf('/photo/margherita.jpg'), 1);
    assert.deepEqual(await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`), product);

    const unknown = await t.app.inject({ method: 'GET', url: `/images/${'0'.repeat(64)}.webp` });
    assert.equal(unknown.statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/images/..%2Fsecret' })).statusCode, 404);
  });

  test('a URL used before is not downloaded again: by another product, a change, or the same URL sent again', async () => {
    const tenant = await makeTenant(t.ctx);
    const url = `${base}/photo/reused.jpg`;
    const first = await productWith(tenant, url);
    const second = await productWith(tenant, url, 'Funghi');
    const plain = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Water', price: 0 });
    assert.equal(plain.images, null);
    const changed = await ok(t, tenant.token, 'PATCH', `/menu/products/${plain.id}`, { image_url: url });
    await ok(t, tenant.token, 'PATCH', `/menu/products/${first.id}`, { image_url: url, price: 990 });
    assert.equal(countOf('/photo/reused.jpg'), 1);
    assert.deepEqual(second.images, first.images);
    assert.deepEqual(changed.images, first.images);
    // Per restaurant: another one downloads it for itself.
    await productWith(await makeTenant(t.ctx), url);
    assert.equal(countOf('/photo/reused.jpg'), 2);
  });

  test('a picture narrower than a size is not enlarged; redirects are followed through the guard, at most 3', async () => {
    const tenant = await makeTenant(t.ctx);
    const narrow = await productWith(tenant, `${base}/small/a.png`);
    assert.equal(narrow.images.urls['400'], narrow.images.urls['1200']);
    const served = await t.app.inject({ method: 'GET', url: narrow.images.urls['400'] });
    assert.equal((await sharp(served.rawPayload).metadata()).width, 300);

    const redirected = await productWith(tenant, `${base}/redirect/3/r.jpg`);
    assert.equal(redirected.images.status, 'ready');
    assert.equal(countOf('/photo/r.jpg'), 1);
    const tooMany = await productWith(tenant, `${base}/redirect/4/r4.jpg`);
    assert.deepEqual(tooMany.images, { status: 'failed', urls: null, error: 'More than 3 redirects.' });
    assert.equal(countOf('/photo/r4.jpg'), 0);
  });

  test('a picture that cannot be had leaves the write as it is, with status failed and the reason', async () => {
    const tenant = await makeTenant(t.ctx);
    const cases: [string, RegExp][] = [
      [
        `https://private.images.test:${new URL(base).port}/photo/p.jpg`,
        /resolves to 10\.0\.0\.9.*\(private\)/,
      ],
      [`${base}/to-private`, /10\.0\.0\.7 is not a public internet address/],
      [`${base}/huge`, /larger than 1 MB/],
      [`${base}/page`, /Not an image: Content-Type text\/html/],
      [`${base}/fake`, /Not a picture Servery can read/],
      [`${base}/bomb`, /more than 40 million pixels \(20000×20000\)/],
      [`${base}/missing.jpg`, /HTTP 404/],
    ];
    for (const [url, reason] of cases) {
      const product = await productWith(tenant, url);
      assert.equal(product.image_url, url);
      assert.equal(product.images.status, 'failed', url);
      assert.equal(product.images.urls, null);
      assert.match(product.images.error, reason, url);
    }
    // Failed is an outcome too: the URL is not tried again.
    const pages = countOf('/page');
    await productWith(tenant, `${base}/page`);
    assert.equal(countOf('/page'), pages);
  });

  test('an image_url naming an address outside the public internet is refused at write: 400 on it, nothing kept', async () => {
    const tenant = await makeTenant(t.ctx);
    const send = (method: string, url: string, body: unknown) =>
      t.app.inject({
        method,
        url: `/v1${url}`,
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const product = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Plain', price: 100 });
    const refused = [
      'https://10.0.0.7/photo/x.jpg',
      'https://127.0.0.1/photo/x.jpg',
      'https://0x7f.1/photo/x.jpg', // 127.0.0.1 as a URL reads it
      'https://[::1]/photo/x.jpg',
      'https://[::127.0.0.1]/photo/x.jpg', // IPv4-compatible
      'https://[::ffff:192.168.1.1]/photo/x.jpg', // IPv4-mapped
      'https://[fd00::1]/photo/x.jpg', // unique local
      'https://169.254.169.254/latest/meta-data', // link-local: a cloud's metadata service
      'https://localhost/photo/x.jpg',
      'https://images.localhost/photo/x.jpg',
    ];
    for (const url of refused) {
      const created = await send('POST', '/menu/products', { name: 'Private', price: 100, image_url: url });
      assertError(created, 400, 'invalid_request', 'image_url');
      assert.match(created.json().error.message, /not a public internet address/, url);
      assertError(
        await send('PATCH', `/menu/products/${product.id}`, { image_url: url }),
        400,
        'invalid_request',
        'image_url',
      );
      const synced = await send('PUT', '/menu', {
        mode: 'merge',
        products: [
          { external_id: 'fine', name: 'Fine', price: 100 },
          { external_id: 'private', name: 'Private', price: 100, image_url: url },
        ],
      });
      assertError(synced, 400, 'invalid_request', 'products[1].image_url');
    }
    const products = await ok(t, tenant.token, 'GET', '/menu/products');
    assert.deepEqual(
      products.data.map((p: { name: string; image_url: string | null }) => [p.name, p.image_url]),
      [['Plain', null]],
      'no product written, none changed',
    );
    const images = await t.database.db
      .selectFrom('menu_images')
      .select('url_hash')
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.deepEqual(images, [], 'no image recorded or queued');
  });

  test('a server that does not answer in time: the download ends at the time-out, with the reason', async () => {
    const store = new LocalImageStore(imagesDir);
    assert.deepEqual(await testImageFetcher(store, 1000).fetch(`${base}/hang`), {
      ok: false,
      error: 'No complete answer within 1 s.',
    });
  });
});

describe('more new images than a request downloads', () => {
  test('a sync with 26 new URLs downloads 25 during the request and queues 1 for the worker', async () => {
    const tenant = await makeTenant(t.ctx);
    const urls = Array.from({ length: 26 }, (_, i) => `${base}/photo/many-${i}.jpg`);
    const result = await syncImages(tenant, urls);
    assert.deepEqual(
      result.warnings.map((warning: { code: string }) => warning.code),
      ['images_deferred'],
    );
    assert.ok(urls.slice(0, 25).every((url) => countOf(new URL(url).pathname) === 1));
    assert.equal(countOf('/photo/many-25.jpg'), 0);
    const last = await ok(t, tenant.token, 'GET', `/menu/products/${result.ids.products['p-25']}`);
    assert.deepEqual(last.images, { status: 'pending', urls: null, error: null });
    const first = await ok(t, tenant.token, 'GET', `/menu/products/${result.ids.products['p-0']}`);
    assert.equal(first.images.status, 'ready');
    // The storefront's menu (kept between pages under the menu's version) shows the photos it has.
    const { slug } = await t.ctx.db
      .selectFrom('restaurants')
      .select('slug')
      .where('id', '=', tenant.restaurantId)
      .executeTakeFirstOrThrow();
    const thumbs = async () =>
      (await t.app.inject({ url: `/s/${slug}` })).body.match(/<img class="thumb"/g)?.length ?? 0;
    assert.equal(await thumbs(), 25);

    await runJobs();
    assert.equal(countOf('/photo/many-25.jpg'), 1);
    const done = await ok(t, tenant.token, 'GET', `/menu/products/${result.ids.products['p-25']}`);
    assert.equal(done.images.status, 'ready');
    assert.equal(await thumbs(), 26, 'the photo the worker downloaded is on the menu at once');
    // The same sync again downloads nothing and defers nothing.
    const again = await syncImages(tenant, urls);
    assert.deepEqual(again.warnings, []);
    assert.ok(urls.every((url) => countOf(new URL(url).pathname) === 1));
  });

  test('a dry run downloads and records nothing, and says what the sync would defer', async () => {
    const tenant = await makeTenant(t.ctx);
    const urls = Array.from({ length: 27 }, (_, i) => `${base}/photo/dry-${i}.jpg`);
    const result = await syncImages(tenant, urls, true);
    assert.deepEqual(
      result.warnings.map((warning: { code: string; message: string }) => [
        warning.code,
        warning.message.split(' ')[0],
      ]),
      [['images_deferred', '2']],
    );
    assert.equal(countOf('/photo/dry-0.jpg'), 0);
    const rows = await t.database.db
      .selectFrom('menu_images')
      .select('url_hash')
      .where('tenant_id', '=', tenant.restaurantId)
      .execute();
    assert.deepEqual(rows, []);
  });

  test('without a downloader (the dashboard) a new image waits for the worker; a full disk loses nothing', async () => {
    const tenant = await makeTenant(t.ctx);
    const url = `${base}/photo/later.jpg`;
    const outcomes = await t.database.db
      .transaction()
      .execute((trx) => takeImages({ ...tenantCtx(tenant), db: trx }, [url]));
    assert.deepEqual([...outcomes.values()], ['deferred']);
    // The disk is full: nothing is kept, the job fails and stays due for a retry.
    const full: ImageStore = {
      put: async (name) => {
        throw new ImageStoreError(`Image ${name} not stored in /full: the disk is full.`);
      },
      get: async () => null,
    };
    await runJobs(testImageFetcher(full));
    const job = await t.database.db
      .selectFrom('jobs')
      .selectAll()
      .where('tenant_id', '=', tenant.restaurantId)
      .where('kind', '=', 'menu-images')
      .executeTakeFirstOrThrow();
    assert.equal(job.attempts, 1);
    assert.equal(job.done_at, null);
    assert.match(String(job.last_error), /the disk is full/);
    assert.equal(job.failed_at, null);
    const row = () =>
      t.database.db
        .selectFrom('menu_images')
        .select(['status', 'error'])
        .where('tenant_id', '=', tenant.restaurantId)
        .where('url_hash', '=', imageUrlHash(url))
        .executeTakeFirstOrThrow();
    assert.deepEqual(await row(), { status: 'pending', error: null });
    t.clock.advance(60_000);
    await runJobs();
    assert.deepEqual(await row(), { status: 'ready', error: null });
    assert.equal(countOf('/photo/later.jpg'), 2);
  });
});

describe('a test restaurant keeps at most 50 images', () => {
  /** Records `count` ready images of the restaurant, as 50 earlier downloads would have. */
  async function fill(tenant: Tenant, count: number): Promise<string[]> {
    const urls = Array.from(
      { length: count },
      (_, i) => `${base}/photo/kept-${tenant.restaurantId}-${i}.jpg`,
    );
    const sizes = JSON.stringify({ '400': `${'a'.repeat(64)}.webp`, '1200': `${'a'.repeat(64)}.webp` });
    await t.database.db
      .insertInto('menu_images')
      .values(
        urls.map((url) => ({
          tenant_id: tenant.restaurantId,
          url_hash: imageUrlHash(url),
          source_url: url,
          status: 'ready' as const,
          sizes,
          created_at: t.clock.now(),
          updated_at: t.clock.now(),
        })),
      )
      .execute();
    return urls;
  }

  test('a single-product write with a 51st image answers 400 on image_url, downloading nothing', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    const kept = await fill(tenant, 50);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/menu/products',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'One more', price: 100, image_url: `${base}/photo/capped.jpg` }),
    });
    assertError(res, 400, 'invalid_request', 'image_url');
    assert.equal(countOf('/photo/capped.jpg'), 0);
    const product = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Known', price: 100 });
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: `/v1/menu/products/${product.id}`,
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ image_url: `${base}/photo/capped.jpg` }),
      }),
      400,
      'invalid_request',
      'image_url',
    );
    // One of its 50 is no new image.
    const reused = await ok(t, tenant.token, 'PATCH', `/menu/products/${product.id}`, { image_url: kept[0] });
    assert.equal(reused.images.status, 'ready');
    // A sync: the new ones are skipped with a warning, the sync goes through.
    const result = await ok(t, tenant.token, 'PUT', '/menu', {
      mode: 'merge',
      products: [
        { external_id: 'kept', name: 'Kept', price: 100, image_url: kept[1] },
        { external_id: 'new', name: 'New', price: 100, image_url: `${base}/photo/c2.jpg` },
      ],
    });
    assert.deepEqual(
      result.warnings.map((warning: { code: string }) => warning.code),
      ['images_capped'],
    );
    assert.equal(countOf('/photo/c2.jpg'), 0);
    const capped = await ok(t, tenant.token, 'GET', `/menu/products/${result.ids.products.new}`);
    assert.equal(capped.image_url, `${base}/photo/c2.jpg`);
    assert.equal(capped.images, null);
  });

  test('the cap counts images downloaded or queued; failed ones and live restaurants are not capped', async () => {
    const tenant = await makeTenant(t.ctx, { livemode: false });
    await fill(tenant, 48);
    const failed = await productWith(tenant, `${base}/page`);
    assert.equal(failed.images.status, 'failed');
    const urls = [`${base}/photo/n1.jpg`, `${base}/photo/n2.jpg`, `${base}/photo/n3.jpg`];
    const result = await syncImages(tenant, urls);
    assert.deepEqual(
      urls.map((url) => countOf(new URL(url).pathname)),
      [1, 1, 0],
    );
    assert.deepEqual(
      result.warnings.map((warning: { code: string }) => warning.code),
      ['images_capped'],
    );

    const live = await makeTenant(t.ctx);
    await fill(live, 50);
    assert.equal((await productWith(live, `${base}/photo/live-51.jpg`)).images.status, 'ready');
  });
});

test('the local store writes aside and renames, and says clearly when it cannot keep an image', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'servery-store-'));
  try {
    const store = new LocalImageStore(dir);
    const name = `${'b'.repeat(64)}.webp`;
    await store.put(name, Buffer.from('webp bytes'), 'image/webp');
    assert.deepEqual(await store.get(name), { bytes: Buffer.from('webp bytes'), contentType: 'image/webp' });
    assert.equal(await store.get(`${'c'.repeat(64)}.webp`), null);
    assert.equal(await store.get('../../etc/passwd'), null);
    // A directory that cannot be made (a file is in its way): a clear error, nothing left behind.
    writeFileSync(path.join(dir, 'dd'), 'in the way');
    await assert.rejects(
      store.put(`${'d'.repeat(64)}.webp`, Buffer.from('x'), 'image/webp'),
      (error: Error) => error instanceof ImageStoreError && /not stored in/.test(error.message),
    );
    assert.deepEqual(readFileSync(path.join(dir, 'dd'), 'utf8'), 'in the way');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
