import type { FastifyRequest } from 'fastify';
import type { ImageFetcher, ImageSizes } from '../../../domain/shared/image-fetcher.ts';
import type { StorefrontPicture } from '../../../domain/store/storefront-look.ts';
import { uploadOf } from '../../web/form-uploads.ts';
import type { FormReader } from './menu-forms.ts';

/** The storefront's pictures, in the order the settings form shows them. */
export const storefrontPictures: readonly StorefrontPicture[] = ['logo', 'cover'];

/**
 * The logo or cover picture sent with the store's settings (a file field of its name; JPEG, PNG or
 * WebP up to 10 MB), checked and kept in the hosted sizes before the write's transaction: its
 * sizes; null when `remove_<name>` is ticked; undefined when it stays as it is. A file that is no
 * such picture is an invalid field of the form.
 */
export async function sentPicture(
  request: FastifyRequest,
  form: FormReader,
  name: StorefrontPicture,
  keeper: ImageFetcher | undefined,
): Promise<ImageSizes | null | undefined> {
  if (form.text(`remove_${name}`) === 'yes') return null;
  const upload = keeper && uploadOf(request, name);
  if (!upload) return undefined;
  const kept = upload.tooLarge ? null : await keeper.keep(upload.bytes);
  if (kept?.ok) return kept.sizes;
  form.invalid.push(name);
  return undefined;
}
