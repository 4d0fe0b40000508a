import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { refusedRange } from '../../adapters/outbound-http.ts';
import { enqueueJob } from '../jobs/jobs.ts';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import type { FetchedImage, ImageFetcher, ImageSizes } from '../shared/image-fetcher.ts';
import { countMenuChange, isLive } from './menu-writes.ts';

/*
 * Menu images (spec: PUT /menu, Images). A product's image_url stays as the app sent it; Servery
 * downloads the picture once per restaurant and URL (the `menu_images` row, keyed by the URL's
 * hash) and hosts it in standard sizes at /images/<key>:
 * - at most 25 new URLs are downloaded per request; further new ones are queued for the worker
 *   (`deferred`, warning images_deferred);
 * - a URL the restaurant used before (ready, failed or queued) is not downloaded again;
 * - a test restaurant keeps at most 50 images, downloaded or queued; further new URLs are skipped
 *   (`capped`, warning images_capped; a single-product write answers 400);
 * - a dry run downloads and records nothing.
 *
 * A write takes its images in two steps, because a download waits on another server (up to 10 s):
 * inside the write's transaction it would hold the restaurant's menu lock, a PostgreSQL
 * connection and, on PGlite, the one connection every request shares. So
 * 1. downloadNewImages runs before the transaction opens (the API pipeline's ApiRoute.beforeWrite,
 *    on the database outside any transaction): it downloads the new URLs within the request's
 *    budget and records each outcome at once. The outcome belongs to the URL, not to the write,
 *    so it stays even if the write then fails.
 * 2. takeImages runs inside the transaction and does database work only: the URLs downloaded in
 *    step 1 are known by then; what is still new is queued for the worker or capped.
 * A caller without a downloader (ctx.images absent: the dashboard) skips step 1, and its new URLs
 * all go to the worker.
 */

export const maxDownloadsPerRequest = 25;
export const maxTestRestaurantImages = 50;
/** Downloads run side by side, this many at a time (each within its 10 s). */
const downloadsAtOnce = 5;

/** The key of a URL's image: SHA-256 of its UTF-8 bytes, hex (products find theirs in SQL the same way). */
export function imageUrlHash(url: string): string {
  return createHash('sha256').update(url, 'utf8').digest('hex');
}

/**
 * A product's image_url as written (products and the sync), else 400 on `param`: an https URL
 * whose host is not an address outside the public internet (an IP literal in a private, loopback
 * or other non-unicast range, any IPv6 form of one, or `localhost`). A host name is checked where
 * it resolves, at download (the outbound client). Stored as given: the sync key apps compare with.
 */
export function checkedImageUrl(value: string | null, param: string): string | null {
  if (value === null) return null;
  const refusal = imageUrlRefusal(value);
  if (refusal) throw new ApiError('invalid_request', `${param} ${refusal}`, { param });
  return value;
}

function imageUrlRefusal(value: string): string | null {
  const url = URL.parse(value);
  if (url === null || url.protocol !== 'https:' || url.hostname === '') return 'must be an https URI.';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host.endsWith('.localhost'))
    return `names ${host}, not a public internet address (loopback).`;
  const range = isIP(host) === 0 ? null : refusedRange(host, false);
  return range ? `names ${host}, not a public internet address (${range}).` : null;
}

/** What an owner's upload came to: the image_url it is kept under, or why it was not taken. */
export type UploadedImage = { ok: true; url: string } | { ok: false; refused: 'unreadable' | 'capped' };

/**
 * A picture an owner uploaded (the dashboard's product form), checked and kept in the hosted sizes
 * as a download is, before the write's transaction, and recorded ready under its address on
 * Servery (`<baseUrl>/images/<key of its large size>`): that address becomes the product's
 * image_url, an image the restaurant has, never downloaded.
 * A test restaurant holding its 50 images takes none.
 */
export async function keepUploadedImage(
  ctx: Ctx,
  keeper: ImageFetcher,
  bytes: Buffer,
  baseUrl: string,
): Promise<UploadedImage> {
  if ((await roomLeft(ctx)) === 0) return { ok: false, refused: 'capped' };
  const kept = await keeper.keep(bytes);
  if (!kept.ok) return { ok: false, refused: 'unreadable' };
  const url = `${baseUrl}${imagePath(kept.sizes['1200'])}`;
  await recordFetched(ctx, url, kept);
  return { ok: true, url };
}

/**
 * checkedImageUrl, except that an address the restaurant already has a ready picture of is taken
 * as it is: an owner's upload, kept under Servery's own address (http on a deployment without
 * TLS, such as a laptop's), which nothing downloads.
 */
export async function acceptedImageUrl(
  ctx: Ctx,
  value: string | null,
  param: string,
): Promise<string | null> {
  if (value === null || imageUrlRefusal(value) === null) return value;
  const hosted = await ctx.db
    .selectFrom('menu_images')
    .select('status')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('url_hash', '=', imageUrlHash(value))
    .where('status', '=', 'ready')
    .executeTakeFirst();
  return hosted ? value : checkedImageUrl(value, param);
}

/** Step 1: downloads new URLs within the request's budget, before the write's transaction (see above). */
export async function downloadNewImages(ctx: Ctx, urls: Iterable<string | null | undefined>): Promise<void> {
  const fetcher = ctx.images;
  if (!fetcher) return;
  const wanted = distinct(urls).filter((url) => imageUrlRefusal(url) === null);
  if (wanted.length === 0) return;
  const known = await knownUrls(ctx, wanted);
  const fresh = wanted.filter((url) => !known.has(url)).slice(0, maxDownloadsPerRequest);
  if (fresh.length === 0) return;
  // A store that failed (a full disk) leaves its URL new: the write then queues it for the worker,
  // which tries again later and logs the error.
  await fetchEach(ctx, fetcher, fresh.slice(0, await roomLeft(ctx)));
}

/**
 * What a write's image URL comes to in takeImages:
 * - `known`: the restaurant has it already (ready, failed, or queued), downloaded before or by
 *   this request's downloadNewImages;
 * - `download`: only in a dry run: new, and within the request's 25 downloads;
 * - `deferred`: new, queued for the worker (warning images_deferred);
 * - `capped`: new, skipped: the test restaurant holds its 50 images (warning images_capped).
 */
export type ImageOutcome = 'known' | 'download' | 'deferred' | 'capped';

/**
 * Step 2, inside the write's transaction (see above): the outcome of each distinct URL, in the
 * order given, found with one query. A new URL is queued for the worker (recorded as pending,
 * downloaded by the job `menu-images`), or capped in a test restaurant; with `dryRun` nothing is
 * recorded or queued, and the first 25 new URLs are `download`, as the real write would take
 * them. The URLs must be ones a write takes (checkedImageUrl): the caller checks them first.
 */
export async function takeImages(
  ctx: Ctx,
  urls: Iterable<string>,
  options: { dryRun?: boolean } = {},
): Promise<Map<string, ImageOutcome>> {
  const wanted = distinct(urls);
  const outcomes = new Map<string, ImageOutcome>();
  if (wanted.length === 0) return outcomes;
  const known = await knownUrls(ctx, wanted);
  const fresh = wanted.filter((url) => !known.has(url));
  const room = fresh.length === 0 ? 0 : await roomLeft(ctx);
  const taken = fresh.slice(0, room);
  const queued = options.dryRun ? new Set<string>() : await queueDownloads(ctx, taken);
  for (const url of known) outcomes.set(url, 'known');
  for (const [index, url] of taken.entries()) {
    if (options.dryRun) outcomes.set(url, index < maxDownloadsPerRequest ? 'download' : 'deferred');
    else outcomes.set(url, queued.has(url) ? 'deferred' : 'known');
  }
  for (const url of fresh.slice(room)) outcomes.set(url, 'capped');
  // In the order given.
  return new Map(wanted.map((url) => [url, outcomes.get(url) as ImageOutcome]));
}

/** Jobs of kind `menu-images` carry this many URLs each. */
const urlsPerJob = maxDownloadsPerRequest;

/**
 * New URLs recorded as pending and queued for the worker, in the write's transaction; those
 * another request recorded meanwhile are left to it. Returns the URLs queued.
 */
async function queueDownloads(ctx: Ctx, urls: readonly string[]): Promise<Set<string>> {
  if (urls.length === 0) return new Set();
  const tenantId = tenantOf(ctx);
  const now = ctx.clock.now();
  const inserted = await ctx.db
    .insertInto('menu_images')
    .values(
      urls.map((url) => ({
        tenant_id: tenantId,
        url_hash: imageUrlHash(url),
        source_url: url,
        status: 'pending' as const,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['tenant_id', 'url_hash']).doNothing())
    .returning('source_url')
    .execute();
  const queued = inserted.map((row) => row.source_url);
  for (let start = 0; start < queued.length; start += urlsPerJob) {
    await enqueueJob(ctx, 'menu-images', { urls: queued.slice(start, start + urlsPerJob) }, { tenantId });
  }
  return new Set(queued);
}

/**
 * The job `menu-images`: downloads the URLs still pending, each as in a request. A store failure
 * is thrown after the others are done, so the job runs again later for the ones left pending.
 */
export async function downloadQueuedImages(ctx: Ctx, urls: readonly string[]): Promise<void> {
  if (!ctx.images) throw new Error('downloading menu images needs an image fetcher');
  const pending = await ctx.db
    .selectFrom('menu_images')
    .select('source_url')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('url_hash', 'in', urls.map(imageUrlHash))
    .where('status', '=', 'pending')
    .execute();
  const failure = await fetchEach(
    ctx,
    ctx.images,
    pending.map((row) => row.source_url),
  );
  if (failure) throw failure;
}

/**
 * Fetches the URLs, `downloadsAtOnce` at a time, recording each outcome as it comes. Returns the
 * error of a fetch that threw (the store failed), after all have run; those URLs stay as they were.
 */
async function fetchEach(ctx: Ctx, fetcher: ImageFetcher, urls: readonly string[]): Promise<Error | null> {
  const queue = [...urls];
  let failure: Error | null = null;
  const downloader = async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      let fetched: FetchedImage;
      try {
        fetched = await fetcher.fetch(url);
      } catch (error) {
        failure = error as Error;
        continue;
      }
      await recordFetched(ctx, url, fetched);
    }
  };
  await Promise.all(Array.from({ length: Math.min(downloadsAtOnce, urls.length) }, downloader));
  return failure;
}

/** A download's outcome: a new row, or the end of a pending one (a ready or failed one stays). */
async function recordFetched(ctx: Ctx, url: string, fetched: FetchedImage): Promise<void> {
  const now = ctx.clock.now();
  const outcome = fetched.ok
    ? { status: 'ready' as const, sizes: JSON.stringify(fetched.sizes), error: null }
    : { status: 'failed' as const, sizes: null, error: fetched.error.slice(0, 500) };
  await ctx.db
    .insertInto('menu_images')
    .values({
      tenant_id: tenantOf(ctx),
      url_hash: imageUrlHash(url),
      source_url: url,
      ...outcome,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['tenant_id', 'url_hash'])
        .doUpdateSet({ ...outcome, updated_at: now })
        .where('menu_images.status', '=', 'pending'),
    )
    .execute();
  // After the outcome: a reader that sees the new count also sees the image (outside a transaction too).
  await countMenuChange(ctx);
}

/** The URLs among `urls` the restaurant has an image row for (one query). */
async function knownUrls(ctx: Ctx, urls: readonly string[]): Promise<Set<string>> {
  const rows = await ctx.db
    .selectFrom('menu_images')
    .select('source_url')
    .where('tenant_id', '=', tenantOf(ctx))
    .where('url_hash', 'in', urls.map(imageUrlHash))
    .execute();
  return new Set(rows.map((row) => row.source_url));
}

/** How many more images the restaurant may have: a test restaurant 50 in all (ready or queued). */
async function roomLeft(ctx: Ctx): Promise<number> {
  if (await isLive(ctx)) return Number.POSITIVE_INFINITY;
  const { count } = await ctx.db
    .selectFrom('menu_images')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('tenant_id', '=', tenantOf(ctx))
    .where('status', 'in', ['ready', 'pending'])
    .executeTakeFirstOrThrow();
  return Math.max(0, maxTestRestaurantImages - Number(count));
}

function distinct(urls: Iterable<string | null | undefined>): string[] {
  return [...new Set([...urls].filter((url): url is string => typeof url === 'string'))];
}

/** A product's hosted image as the Product resource shows it (`images`). */
export interface ProductImages {
  status: 'pending' | 'ready' | 'failed';
  /** Where each size is served, by width; paths on Servery's API host. */
  urls: ImageSizes | null;
  error: string | null;
}

/** The `images` of a product from its image row (null: no image_url, or none taken for it). */
export function productImages(row: {
  image_status: ProductImages['status'] | null;
  image_sizes: Record<string, string> | null;
  image_error: string | null;
}): ProductImages | null {
  if (row.image_status === null) return null;
  const sizes = row.image_sizes as ImageSizes | null;
  return {
    status: row.image_status,
    urls: sizes && { '400': imagePath(sizes['400']), '1200': imagePath(sizes['1200']) },
    error: row.image_error,
  };
}

/** Where the image under a store key is served (src/http/images.route.ts). */
export function imagePath(key: string): string {
  return `/images/${key}`;
}
