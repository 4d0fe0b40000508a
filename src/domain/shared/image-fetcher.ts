/*
 * What the menu's image rules need of the outside world: a picture fetched (or uploaded), checked
 * and kept in its hosted sizes. The download (the guarded outbound client), the checks and resizing (sharp)
 * and the storage are infrastructure: src/adapters/hosted-images.ts.
 */

/** The widths a menu image is hosted in, in pixels (a narrower original keeps its own width). */
export const imageWidths = ['400', '1200'] as const;
export type ImageWidth = (typeof imageWidths)[number];

/** Where each hosted size is kept: the image store's key, by width. */
export type ImageSizes = Record<ImageWidth, string>;

/** A picture kept in every hosted size, or why it could not be had (a message for the app). */
export type FetchedImage = { ok: true; sizes: ImageSizes } | { ok: false; error: string };

export interface ImageFetcher {
  /**
   * Downloads, checks and keeps the picture at `url`. Whatever is wrong with the picture or its
   * server is an answer (`ok: false`); it throws only when the picture could not be kept (the
   * store failed, e.g. a full disk), which says nothing about the URL: it is to be tried again.
   */
  fetch(url: string): Promise<FetchedImage>;
  /** Checks and keeps a picture given as bytes (an owner's upload), as `fetch` does a downloaded one. */
  keep(bytes: Buffer): Promise<FetchedImage>;
}
