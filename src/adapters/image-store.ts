import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A stored image: its bytes and their media type. */
export interface StoredImage {
  bytes: Buffer;
  contentType: string;
}

/**
 * Where hosted menu images are kept, by key (`<sha256 of the bytes>.webp`: content-addressed, so a
 * key's bytes never change and the same picture is kept once). A local directory by default; an
 * object store would implement the same two calls.
 */
export interface ImageStore {
  /** Keeps `bytes` under `key`; done when they are safely there (a key already kept is left alone). */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The image under `key`, or null when there is none. */
  get(key: string): Promise<StoredImage | null>;
}

/** Keys are content hashes with the type's extension; nothing else names a file. */
const keyPattern = /^[0-9a-f]{64}\.webp$/;
const contentTypes: Readonly<Record<string, string>> = { '.webp': 'image/webp' };

export function isImageKey(key: string): boolean {
  return keyPattern.test(key);
}

/** The store cannot take an image (the disk is full, the directory not writable): nothing was kept. */
export class ImageStoreError extends Error {
  override name = 'ImageStoreError';
}

/*
 * Images as files in one directory (IMAGES_DIR), in subdirectories by the key's first two
 * characters so no directory grows huge:
 * - a file is written aside (a temporary name in the same directory) and renamed into place, so
 *   a reader never sees half an image and a full disk or a crash leaves no damaged one: the
 *   temporary file is removed, the error says what happened, and the caller keeps what it had
 *   (a queued download is retried later);
 * - the media type follows from the key's extension.
 */
export class LocalImageStore implements ImageStore {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = path.resolve(dir);
  }

  #file(key: string): string {
    if (!isImageKey(key)) throw new Error(`not an image key: ${key}`);
    return path.join(this.#dir, key.slice(0, 2), key);
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const file = this.#file(key);
    if (contentTypes[path.extname(key)] !== contentType)
      throw new Error(`image ${key} cannot be kept as ${contentType}`);
    const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
    try {
      if (await exists(file)) return;
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(partial, bytes, { flag: 'wx' });
      await rename(partial, file);
    } catch (error) {
      // Nothing may be left behind; a directory that could not be made holds nothing to remove.
      await rm(partial, { force: true }).catch(() => {});
      const code = (error as NodeJS.ErrnoException).code;
      const reason =
        code === 'ENOSPC' || code === 'EDQUOT'
          ? 'the disk is full'
          : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
            ? 'the directory is not writable'
            : (error as Error).message;
      throw new ImageStoreError(`Image ${key} not stored in ${this.#dir}: ${reason}.`, { cause: error });
    }
  }

  async get(key: string): Promise<StoredImage | null> {
    if (!isImageKey(key)) return null;
    try {
      const bytes = await readFile(this.#file(key));
      return { bytes, contentType: contentTypes[path.extname(key)] as string };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
