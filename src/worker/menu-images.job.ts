import { downloadQueuedImages } from '../domain/menu/menu-images.ts';
import type { JobHandler } from './job-queue.ts';

/*
 * Job kind `menu-images`: the menu images a write queued beyond its 25 downloads. A picture that
 * cannot be had is recorded as failed (no retry: its URL is not downloaded again); only an image
 * store that fails (a full disk) fails the run, retried after 1 minute, doubling, up to 10 times.
 * A run takes at most 25 downloads of 10 s each, 5 at a time: well within the queue's lease.
 */
export const menuImagesJob: JobHandler<{ urls: string[] }> = {
  failure: 'menu images not stored',
  run: (payload, _services, _job, ctx) => downloadQueuedImages(ctx, payload.urls),
};
