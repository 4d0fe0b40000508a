import type { FastifyRequest } from 'fastify';
import type { Product } from '../../../domain/menu/menu.schema.ts';
import { imagePath, keepUploadedImage, maxTestRestaurantImages } from '../../../domain/menu/menu-images.ts';
import type { Ctx } from '../../../domain/shared/context.ts';
import type { ImageFetcher } from '../../../domain/shared/image-fetcher.ts';
import { uploadOf } from '../../web/form-uploads.ts';
import type { FormError, PageView } from '../../web/page.ts';
import type { FormReader } from './menu-forms.ts';

/** Where uploaded photos are kept, and the address they are served under. */
export interface PhotoUploads {
  keeper: ImageFetcher;
  baseUrl: string;
}

/** What a product form's photo comes to: the input's image_url (absent: unchanged), or its error. */
export interface SentPhoto {
  input: { image_url?: string | null };
  errors: FormError[];
}

/*
 * The photo of the product form, taken before the write's transaction (the picture is checked
 * and resized first, menu-images.ts): the file chosen (JPEG, PNG or WebP up to 10 MB) becomes
 * the product's image_url; "remove" clears it; else the form's hidden `image_url` says which it
 * keeps (the product's, or one uploaded with a submit refused for another field, so the owner
 * need not choose it again). That field is the API's image_url, under the API's rules.
 */
export async function sentPhoto(
  request: FastifyRequest,
  ctx: Ctx,
  form: FormReader,
  view: PageView,
  uploads: PhotoUploads | undefined,
): Promise<SentPhoto> {
  if (form.text('remove_photo') === 'yes') return { input: { image_url: null }, errors: [] };
  const upload = uploads && uploadOf(request, 'photo');
  const kept = form.optionalText('image_url');
  if (!upload) return { input: kept === null ? {} : { image_url: kept }, errors: [] };
  const refused = (message: string) => ({ input: {}, errors: [{ field: 'photo', message }] });
  if (upload.tooLarge) return refused(view.t('menuForm.errors.photo'));
  const taken = await keepUploadedImage(ctx, uploads.keeper, upload.bytes, uploads.baseUrl);
  if (taken.ok) return { input: { image_url: taken.url }, errors: [] };
  return refused(
    taken.refused === 'capped'
      ? view.t('menuForm.errors.photoCapped', { count: maxTestRestaurantImages })
      : view.t('menuForm.errors.photo'),
  );
}

/**
 * The picture the form shows for its image_url: the product's small hosted size, or an upload's
 * (its address on Servery) not yet saved; null when there is none to show yet.
 */
export function photoShown(product: Product | null, imageUrl: string, baseUrl: string): string | null {
  if (imageUrl === '') return null;
  if (product?.image_url === imageUrl && product.images?.urls) return product.images.urls['400'];
  const own = `${baseUrl}${imagePath('')}`;
  return imageUrl.startsWith(own) ? imageUrl.slice(baseUrl.length) : null;
}
