import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { LocalImageStore } from '../../src/adapters/image-store.ts';
import { imageUrlHash } from '../../src/domain/menu/menu-images.ts';
import {
  buildTestApp,
  developerSession,
  makeTenant,
  type Tenant,
  type TestApp,
  testBaseUrl,
} from '../harness.ts';
import { testImageFetcher } from '../menu/image-host.ts';
import { ok } from '../menu/menu-helpers.ts';

/*
 * The product form's photo over HTTP (multipart/form-data, as the browser sends it): a JPEG, PNG
 * or WebP up to 10 MB is resized by the image pipeline and becomes the product's image_url, under
 * Servery's own address, hosted in both sizes; a file that is no such picture or is too large is
 * refused beside the field, with the form's other errors, and changes nothing; a photo taken with
 * a submit refused for another field is kept for the next one; "remove" clears it.
 */
let t: TestApp;
let imagesDir = '';
before(async () => {
  imagesDir = mkdtempSync(path.join(tmpdir(), 'servery-photos-'));
  const store = new LocalImageStore(imagesDir);
  t = await buildTestApp({ images: { store, fetcher: testImageFetcher(store) } });
});
after(async () => {
  await t.close();
  rmSync(imagesDir, { recursive: true, force: true });
});

const photo = (background: string, format: 'jpeg' | 'png' | 'webp' = 'jpeg') =>
  sharp({ create: { width: 1600, height: 1200, channels: 3, background } })
    .toFormat(format)
    .toBuffer();

interface File {
  bytes: Buffer;
  filename: string;
  type: string;
}

/** The product form of a restaurant's owner, posted as the browser posts it. */
async function productForm(tenant: Tenant) {
  const cookie = await developerSession(t, tenant, 'dashboard');
  const base = `/dashboard/restaurants/${tenant.restaurantId}/menu`;
  const page = await t.app.inject({ method: 'GET', url: `${base}/products/new`, headers: { cookie } });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /enctype="multipart\/form-data"/);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const cookies = [cookie, ...page.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  return {
    get: (url: string) => t.app.inject({ method: 'GET', url: `${base}${url}`, headers: { cookie: cookies } }),
    post: async (url: string, fields: Record<string, string>, file?: File) => {
      const data = new FormData();
      for (const [name, value] of Object.entries({ _csrf: csrf, lang: 'en', ...fields }))
        data.append(name, value);
      data.append(
        'photo',
        file ? new Blob([new Uint8Array(file.bytes)], { type: file.type }) : new Blob([]),
        file?.filename ?? '',
      );
      const encoded = new Request('http://form.test', { method: 'POST', body: data });
      return t.app.inject({
        method: 'POST',
        url: `${base}${url}`,
        headers: { cookie: cookies, 'content-type': encoded.headers.get('content-type') ?? '' },
        payload: Buffer.from(await encoded.arrayBuffer()),
      });
    },
  };
}

const errorsOf = (body: string) =>
  [...body.matchAll(/<p class="field-error" id="([^"]+)-error">(.*?)<\/p>/g)].map((m) => [m[1], m[2]]);
const hiddenImageUrl = (body: string) => /name="image_url" value="([^"]*)"/.exec(body)?.[1];
const ownImage = new RegExp(`^${testBaseUrl}/images/[0-9a-f]{64}\\.webp$`);

test('an uploaded photo becomes the product’s image, hosted in both sizes, shown on the form and the storefront', async () => {
  const tenant = await makeTenant(t.ctx);
  const form = await productForm(tenant);
  const created = await form.post(
    '/products',
    { name: 'Margherita', price: '9.50' },
    { bytes: await photo('tomato'), filename: 'margherita.jpg', type: 'image/jpeg' },
  );
  assert.equal(created.statusCode, 303, created.body);
  const [product] = (await ok(t, tenant.token, 'GET', '/menu')).products;
  assert.match(product.image_url, ownImage);
  assert.equal(product.images.status, 'ready');
  for (const width of ['400', '1200']) {
    const image = await t.app.inject({ method: 'GET', url: product.images.urls[width] });
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers['content-type'], 'image/webp');
    const { width: actual } = await sharp(image.rawPayload).metadata();
    assert.equal(actual, Number(width));
  }
  // The form shows it, small, and holds its address.
  const shown = await form.get(`/products/${product.id}`);
  assert.ok(shown.body.includes(`class="photo-preview" src="${product.images.urls['400']}"`));
  assert.equal(hiddenImageUrl(shown.body), product.image_url);
  assert.match(shown.body, /Choose another photo/);

  // Saved again without a file, the photo stays.
  const saved = await form.post(`/products/${product.id}`, {
    name: 'Margherita',
    price: '10',
    image_url: product.image_url,
  });
  assert.equal(saved.statusCode, 303, saved.body);
  const again = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
  assert.equal(again.image_url, product.image_url);
  assert.equal(again.price, 1000);

  // PNG and WebP too, replacing it.
  for (const format of ['png', 'webp'] as const) {
    const replaced = await form.post(
      `/products/${product.id}`,
      { name: 'Margherita', price: '10', image_url: product.image_url },
      { bytes: await photo('navy', format), filename: `photo.${format}`, type: `image/${format}` },
    );
    assert.equal(replaced.statusCode, 303, replaced.body);
    const now = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
    assert.match(now.image_url, ownImage);
    assert.notEqual(now.image_url, product.image_url);
    assert.equal(now.images.status, 'ready');
  }

  // Removed.
  const current = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
  const removed = await form.post(`/products/${product.id}`, {
    name: 'Margherita',
    price: '10',
    image_url: current.image_url,
    remove_photo: 'yes',
  });
  assert.equal(removed.statusCode, 303, removed.body);
  const bare = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
  assert.equal(bare.image_url, null);
  assert.equal(bare.images, null);
});

test('a file that is no photo, or is over 10 MB, is refused beside the field with the other errors; nothing changes', async () => {
  const tenant = await makeTenant(t.ctx);
  const product = await ok(t, tenant.token, 'POST', '/menu/products', { name: 'Soup', price: 500 });
  const form = await productForm(tenant);
  const noPhoto = {
    bytes: Buffer.from('GIF89a not a photo at all'),
    filename: 'soup.jpg',
    type: 'image/jpeg',
  };
  const gif = await sharp({ create: { width: 10, height: 10, channels: 3, background: 'red' } })
    .gif()
    .toBuffer();
  const huge = Buffer.concat([await photo('green'), Buffer.alloc(10 * 1024 * 1024)]);
  const photoError = 'Choose a JPEG, PNG or WebP photo of at most 10 MB.';
  for (const file of [
    noPhoto,
    { bytes: gif, filename: 'soup.gif', type: 'image/gif' },
    { bytes: huge, filename: 'huge.jpg', type: 'image/jpeg' },
  ]) {
    const refused = await form.post(`/products/${product.id}`, { name: 'Soup', price: 'five' }, file);
    assert.equal(refused.statusCode, 400, file.filename);
    assert.deepEqual(errorsOf(refused.body), [
      ['price', 'Enter the price as an amount, for example 9.50.'],
      ['photo', photoError],
    ]);
    assert.match(refused.body, /<input id="photo" name="photo" type="file"[^>]* aria-invalid="true"/);
  }
  // Alone, too.
  const alone = await form.post(`/products/${product.id}`, { name: 'Soup', price: '6' }, noPhoto);
  assert.deepEqual(errorsOf(alone.body), [['photo', photoError]]);
  const unchanged = await ok(t, tenant.token, 'GET', `/menu/products/${product.id}`);
  assert.equal(unchanged.price, 500);
  assert.equal(unchanged.image_url, null);
  const images = await t.database.db
    .selectFrom('menu_images')
    .select('url_hash')
    .where('tenant_id', '=', tenant.restaurantId)
    .execute();
  assert.deepEqual(images, [], 'no picture kept');
});

test('a photo taken with a submit refused for another field is kept for the next submit', async () => {
  const tenant = await makeTenant(t.ctx);
  const form = await productForm(tenant);
  const refused = await form.post(
    '/products',
    { name: 'Tiramisu', price: '' },
    { bytes: await photo('peru'), filename: 'tiramisu.jpg', type: 'image/jpeg' },
  );
  assert.equal(refused.statusCode, 400);
  assert.deepEqual(errorsOf(refused.body), [['price', 'Enter the price as an amount, for example 9.50.']]);
  const kept = hiddenImageUrl(refused.body) ?? '';
  assert.match(kept, ownImage);
  // The form shows the photo it holds.
  assert.ok(refused.body.includes(`class="photo-preview" src="${kept.slice(testBaseUrl.length)}"`));
  const created = await form.post('/products', { name: 'Tiramisu', price: '6.50', image_url: kept });
  assert.equal(created.statusCode, 303, created.body);
  const [product] = (await ok(t, tenant.token, 'GET', '/menu')).products;
  assert.equal(product.image_url, kept);
  assert.equal(product.images.status, 'ready');
});

test('a test restaurant that keeps its 50 images takes no more photos', async () => {
  const tenant = await makeTenant(t.ctx, { livemode: false });
  const now = t.clock.now();
  await t.database.db
    .insertInto('menu_images')
    .values(
      Array.from({ length: 50 }, (_, i) => {
        const url = `https://images.test/full-${i}.jpg`;
        return {
          tenant_id: tenant.restaurantId,
          url_hash: imageUrlHash(url),
          source_url: url,
          status: 'pending' as const,
          created_at: now,
          updated_at: now,
        };
      }),
    )
    .execute();
  const form = await productForm(tenant);
  const refused = await form.post(
    '/products',
    { name: 'Salad', price: '7' },
    { bytes: await photo('olive'), filename: 'salad.jpg', type: 'image/jpeg' },
  );
  assert.equal(refused.statusCode, 400);
  assert.deepEqual(errorsOf(refused.body), [
    ['photo', 'This test restaurant already keeps 50 photos: no more are taken.'],
  ]);
  assert.deepEqual((await ok(t, tenant.token, 'GET', '/menu')).products, []);
});
