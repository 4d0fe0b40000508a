import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { type AddressInfo, isIP, type LookupFunction } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { hostedImages } from '../../src/adapters/hosted-images.ts';
import type { ImageStore } from '../../src/adapters/image-store.ts';
import { OutboundHttpClient } from '../../src/adapters/outbound-http.ts';
import type { ImageFetcher } from '../../src/domain/shared/image-fetcher.ts';
import { hangCatcherMs } from '../waiting.ts';

/*
 * The outside world of menu images: https servers on this machine under the names *.images.test
 * (the test certificate in fixtures/), and the service's real downloader pointed at them.
 */

const fixtures = path.join(import.meta.dirname, 'fixtures');
/** The certificate and key of images.test and its subdomains. */
export const imageHostTls = {
  cert: readFileSync(path.join(fixtures, 'images-test.cert.pem'), 'utf8'),
  key: readFileSync(path.join(fixtures, 'images-test.key.pem'), 'utf8'),
};

/** images.test and its subdomains are this machine; private.images.test a private address. */
const lookup: LookupFunction = (hostname, _options, callback) => {
  const address = hostname === 'private.images.test' ? '10.0.0.9' : '127.0.0.1';
  callback(null, [{ address, family: isIP(address) }]);
};

/**
 * The service's downloader of menu images, keeping them in `store`. Its time-out is the
 * hang-catcher's unless given, so that no download of a busy machine is cut short.
 */
export function testImageFetcher(store: ImageStore, timeoutMs = hangCatcherMs): ImageFetcher {
  return hostedImages({
    store,
    // Loopback allowed (the test servers); private and other addresses are refused as in production.
    http: new OutboundHttpClient({ allowLoopback: true, lookup, ca: imageHostTls.cert }),
    userAgent: 'Servery-Images/test',
    limits: { maxBytes: 1024 * 1024, timeoutMs, maxRedirects: 3 },
  });
}

/**
 * A host of dish photos: `GET /<colour>.jpg` answers a 1600×1000 JPEG of that CSS colour name or
 * hex code (without `#`), anything else 404. `base` is `https://images.test:<port>`.
 */
export async function startPhotoHost(): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer(imageHostTls, async (request, response) => {
    const colour = /^\/([a-z]+|[0-9a-f]{6})\.jpg$/.exec(request.url ?? '')?.[1];
    if (!colour) return response.writeHead(404).end();
    const background = /^[0-9a-f]{6}$/.test(colour) ? `#${colour}` : colour;
    const photo = await sharp({ create: { width: 1600, height: 1000, channels: 3, background } })
      .jpeg()
      .toBuffer();
    response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `https://images.test:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
