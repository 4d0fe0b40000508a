import sharp, { type Metadata, type SharpOptions } from 'sharp';
import { type ImageWidth, imageWidths } from '../domain/shared/image-fetcher.ts';
import { ImageDownloadError } from './image-download.ts';

/** Decoding more pixels than this is refused (a decompression bomb: a small file, a huge picture). */
export const maxInputPixels = 40_000_000;

/**
 * Photo formats taken: JPEG, PNG, WebP, AVIF (sharp reports AVIF as heif with av1). Not SVG (a
 * document, with scripts and external references), GIF (animations), TIFF, HEIC or anything else.
 */
function acceptedFormat(metadata: Metadata): boolean {
  const { format, compression } = metadata;
  return (
    format === 'jpeg' || format === 'png' || format === 'webp' || (format === 'heif' && compression === 'av1')
  );
}

/*
 * The hosted sizes of a downloaded picture (by the width asked for), each decoded from the original and written anew as
 * WebP: so anything but the picture (EXIF with its GPS position, ICC profiles, comments) is left
 * out, and the bytes served are our encoder's, never the source's. The picture is turned upright
 * by its EXIF orientation first; an animated one keeps its first frame. A picture narrower than a
 * width is kept at its own width (so two sizes may be the same image).
 */
export async function imageVariants(bytes: Buffer): Promise<{ width: ImageWidth; bytes: Buffer }[]> {
  const options: SharpOptions = { limitInputPixels: maxInputPixels, failOn: 'error' };
  let metadata: Metadata;
  try {
    // The header only (no pixels decoded): the size is checked below, with a message that says so.
    metadata = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw new ImageDownloadError('Not a picture Servery can read (JPEG, PNG, WebP or AVIF).');
  }
  if (!acceptedFormat(metadata))
    throw new ImageDownloadError(
      `Not a JPEG, PNG, WebP or AVIF picture (${metadata.format === 'heif' ? 'heic' : metadata.format}).`,
    );
  if (metadata.width * metadata.height > maxInputPixels)
    throw new ImageDownloadError(
      `The picture has more than ${maxInputPixels / 1_000_000} million pixels (${metadata.width}×${metadata.height}).`,
    );
  try {
    return await Promise.all(
      imageWidths.map(async (width) => {
        const resized = await sharp(bytes, options)
          .rotate()
          .resize({ width: Number(width), withoutEnlargement: true })
          .webp({ quality: 80 })
          .toBuffer();
        return { width, bytes: resized };
      }),
    );
  } catch (error) {
    throw new ImageDownloadError(`The picture could not be decoded: ${(error as Error).message}`);
  }
}
