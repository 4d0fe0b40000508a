import { createHash } from 'node:crypto';
import type { FetchedImage, ImageFetcher, ImageSizes } from '../domain/shared/image-fetcher.ts';
import { downloadImage, ImageDownloadError, type ImageDownloadLimits } from './image-download.ts';
import { type ImageStore, LocalImageStore } from './image-store.ts';
import { imageVariants } from './image-variants.ts';
import { OutboundHttpClient } from './outbound-http.ts';

export interface HostedImagesOptions {
  store: ImageStore;
  /** The guarded outbound client (default: public addresses only). */
  http?: OutboundHttpClient;
  /** `Servery-Images/1.0 (+<documentation address>)`. */
  userAgent: string;
  limits?: ImageDownloadLimits;
}

/**
 * The menu's ImageFetcher: a picture downloaded through the guarded client (image-download.ts)
 * or uploaded, checked and made into its hosted sizes (image-variants.ts), each kept in the store
 * under the SHA-256 of its bytes.
 */
export function hostedImages(options: HostedImagesOptions): ImageFetcher {
  const http = options.http ?? new OutboundHttpClient();
  const hosted = async (bytes: () => Promise<Buffer>): Promise<FetchedImage> => {
    let variants: Awaited<ReturnType<typeof imageVariants>>;
    try {
      variants = await imageVariants(await bytes());
    } catch (error) {
      if (error instanceof ImageDownloadError) return { ok: false, error: error.message };
      throw error;
    }
    const sizes: Partial<ImageSizes> = {};
    for (const { width, bytes } of variants) {
      const key = `${createHash('sha256').update(bytes).digest('hex')}.webp`;
      await options.store.put(key, bytes, 'image/webp');
      sizes[width] = key;
    }
    return { ok: true, sizes: sizes as ImageSizes };
  };
  return {
    fetch: (url) => hosted(() => downloadImage(http, url, options.userAgent, options.limits)),
    keep: (bytes) => hosted(async () => bytes),
  };
}

/** Menu images of a deployment: kept where the store keeps them, fetched by the fetcher. */
export interface MenuImages {
  store: ImageStore;
  fetcher: ImageFetcher;
}

/** A deployment's menu images: files in IMAGES_DIR, downloads within the standard limits. */
export function menuImages(config: { imagesDir: string; baseUrl: string }): MenuImages {
  const store = new LocalImageStore(config.imagesDir);
  return {
    store,
    fetcher: hostedImages({ store, userAgent: `Servery-Images/1.0 (+${config.baseUrl}/v1/openapi.json)` }),
  };
}
