import { colord, extend } from 'colord';
import a11yPlugin from 'colord/plugins/a11y';
import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import type { ImageSizes } from '../shared/image-fetcher.ts';

extend([a11yPlugin]);

/*
 * How a restaurant's storefront looks beyond its name, set by its owner in the dashboard: the
 * accent colour of its header, buttons and links, its logo and its cover picture. White text is
 * drawn on the colour and it is drawn on white, so a colour is taken only when the two read well:
 * a contrast of at least 4.5:1, WCAG AA for normal text (colord's a11y plugin computes it). The
 * pictures are uploads kept in the hosted sizes as menu photos are (ImageFetcher.keep).
 */

/** The storefront's look as its pages draw it (read with the store: getStoreAndRestaurant). */
export interface StorefrontLook {
  /** '#rrggbb', or null: Servery's own. */
  accentColor: string | null;
  logo: ImageSizes | null;
  cover: ImageSizes | null;
}

/** Which of the storefront's pictures. */
export type StorefrontPicture = 'logo' | 'cover';

/** WCAG AA's least contrast for normal text. */
export const leastAccentContrast = 4.5;

/**
 * Sets the storefront's accent colour (the owner, in the dashboard; read with the store,
 * store.service.ts getStoreAndRestaurant): '#rrggbb' (any case; kept in lowercase) with enough
 * contrast against white, or null for Servery's own; else 400 on `accent_color` saying why.
 */
export async function setAccentColor(ctx: Ctx, value: string | null): Promise<void> {
  if (value !== null) {
    if (!/^#[0-9a-fA-F]{6}$/.test(value))
      throw new ApiError('invalid_request', 'accent_color must be a colour written #rrggbb, e.g. #1d5c3a.', {
        param: 'accent_color',
      });
    const contrast = colord(value).contrast('#ffffff');
    if (contrast < leastAccentContrast)
      throw new ApiError(
        'invalid_request',
        `accent_color ${value} is too light: white text on it (and it on white) has a contrast of ${contrast.toFixed(2)}:1, and at least ${leastAccentContrast}:1 is needed to read well (WCAG AA).`,
        { param: 'accent_color' },
      );
  }
  await ctx.db
    .updateTable('stores')
    .set({ accent_color: value?.toLowerCase() ?? null })
    .where('tenant_id', '=', tenantOf(ctx))
    .execute();
}

/** Sets the storefront's logo or cover picture to a kept picture's sizes, or removes it (null). */
export async function setStorefrontPicture(
  ctx: Ctx,
  picture: StorefrontPicture,
  sizes: ImageSizes | null,
): Promise<void> {
  const value = sizes && JSON.stringify(sizes);
  await ctx.db
    .updateTable('stores')
    .set(picture === 'logo' ? { logo_sizes: value } : { cover_sizes: value })
    .where('tenant_id', '=', tenantOf(ctx))
    .execute();
}
