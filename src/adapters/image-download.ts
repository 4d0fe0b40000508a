import type { OutboundHttpClient } from './outbound-http.ts';

/** How far a download may go: bytes, time (all hops and the body together) and redirects. */
export interface ImageDownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export const imageDownloadLimits: ImageDownloadLimits = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 3,
};

/** Why a picture could not be had; the message is shown to the app (`images.error`). */
export class ImageDownloadError extends Error {
  override name = 'ImageDownloadError';
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/*
 * One image fetched from the outside world:
 * - every connection goes through the guarded outbound client (public addresses only, checked on
 *   the address actually connected to, so a DNS answer that changes cannot lead it inside);
 * - redirects are followed by hand, at most 3, each target https and fetched through the same
 *   client, so every hop is checked like the first;
 * - the whole download (every hop and the body) within 10 s;
 * - the answer must be 200 with a Content-Type image/*; at most 10 MB, refused at once by its
 *   Content-Length or cut off as soon as the body grows past it.
 */
export async function downloadImage(
  http: OutboundHttpClient,
  url: string,
  userAgent: string,
  limits: ImageDownloadLimits = imageDownloadLimits,
): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    let target = new URL(url);
    for (let redirects = 0; ; redirects += 1) {
      if (target.protocol !== 'https:')
        throw new ImageDownloadError(`${target.href} is not an https address.`);
      const response = await http.fetch(target, {
        redirect: 'manual',
        signal,
        headers: { accept: 'image/avif,image/webp,image/png,image/jpeg', 'user-agent': userAgent },
      });
      if (redirectStatuses.has(response.status)) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (location === null) throw new ImageDownloadError(`HTTP ${response.status} without a Location.`);
        if (redirects >= limits.maxRedirects)
          throw new ImageDownloadError(`More than ${limits.maxRedirects} redirects.`);
        target = new URL(location, target);
        continue;
      }
      return await imageBody(response, limits.maxBytes);
    }
  } catch (error) {
    throw downloadError(error, limits);
  }
}

async function imageBody(response: Response, maxBytes: number): Promise<Buffer> {
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new ImageDownloadError(`The image address answered HTTP ${response.status}.`);
  }
  const type = response.headers.get('content-type') ?? '';
  if (!/^image\//i.test(type)) {
    await response.body?.cancel();
    throw new ImageDownloadError(`Not an image: Content-Type ${type || 'missing'}.`);
  }
  const tooLarge = () => new ImageDownloadError(`The image is larger than ${maxBytes / 1024 / 1024} MB.`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop cancels the body: nothing more is read.
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

type Response = Awaited<ReturnType<OutboundHttpClient['fetch']>>;

/** Every failure as an ImageDownloadError saying what went wrong, for the app to read. */
function downloadError(error: unknown, limits: ImageDownloadLimits): ImageDownloadError {
  if (error instanceof ImageDownloadError) return error;
  const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
  if (name === 'TimeoutError' || (cause as Error | undefined)?.name === 'TimeoutError')
    return new ImageDownloadError(`No complete answer within ${limits.timeoutMs / 1000} s.`);
  // AddressRefusedError (a non-public address) and network errors come as the fetch's cause.
  return new ImageDownloadError(
    cause?.message ? `Could not fetch the image: ${cause.message}` : `Could not fetch the image: ${message}`,
  );
}
