import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';

/*
 * The restaurant's VAT identification number (stores.vat_id), set by its owner in the dashboard
 * and printed on its receipts (the guest's mail and the storefront's print view). Not a field of
 * the API's store.
 */

export const maxVatId = 40;

/** The restaurant's VAT id, or null. */
export async function storeVatId(ctx: Ctx): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('stores')
    .select('vat_id')
    .where('tenant_id', '=', tenantOf(ctx))
    .executeTakeFirst();
  return row?.vat_id ?? null;
}

/**
 * Sets it (null or blank: none): letters, digits, spaces, dots, dashes and slashes, at most 40
 * characters (`DE123456789`, `FR 12 345678901`), else 400 on `vat_id`.
 */
export async function setStoreVatId(ctx: Ctx, vatId: string | null): Promise<void> {
  const value = vatId?.trim() || null;
  if (value !== null && !/^[\p{L}\p{N} ./-]+$/u.test(value))
    throw new ApiError(
      'invalid_request',
      'vat_id has letters, digits, spaces, dots, dashes and slashes only.',
      {
        param: 'vat_id',
      },
    );
  if (value !== null && value.length > maxVatId)
    throw new ApiError('invalid_request', `vat_id has at most ${maxVatId} characters.`, { param: 'vat_id' });
  await ctx.db.updateTable('stores').set({ vat_id: value }).where('tenant_id', '=', tenantOf(ctx)).execute();
}
