import { ApiError } from '../shared/errors.ts';
import type { DeliveryZone, Store } from './store.schema.ts';

/*
 * Delivery zones (decisions.md, Delivery zones): where a restaurant delivers, by postal code.
 * - A postal code is compared normalized: trimmed, in upper case, without inner spaces
 *   (`sw1a 1aa` is `SW1A1AA`).
 * - A zone's code matches the address's exactly, or, ending in `*`, as a prefix (`101*`).
 * - The first zone in the list that matches applies: its fee and its minimum order (with the
 *   store's own minimum: the higher of the two).
 * - No zones: delivery anywhere, no fee, the store's minimum (as before zones existed).
 */

/** A postal code as zones compare it. */
export function normalizedPostalCode(code: string): string {
  return code.trim().toUpperCase().replace(/\s+/g, '');
}

function matches(zoneCode: string, postalCode: string): boolean {
  return zoneCode.endsWith('*') ? postalCode.startsWith(zoneCode.slice(0, -1)) : zoneCode === postalCode;
}

/** The first zone that has the postal code; undefined: none has it. */
export function zoneOf(zones: readonly DeliveryZone[], postalCode: string): DeliveryZone | undefined {
  const code = normalizedPostalCode(postalCode);
  return zones.find((zone) => zone.postal_codes.some((zoneCode) => matches(zoneCode, code)));
}

/** What a delivery to a postal code costs and needs; null: the restaurant does not deliver there. */
export function deliveryTerms(
  store: Pick<Store, 'delivery_zones' | 'min_order'>,
  postalCode: string,
): { fee: number; minOrder: number } | null {
  if (store.delivery_zones.length === 0) return { fee: 0, minOrder: store.min_order };
  const zone = zoneOf(store.delivery_zones, postalCode);
  return zone ? { fee: zone.fee, minOrder: Math.max(store.min_order, zone.min_order) } : null;
}

/**
 * The zones as stored (the schema has checked their limits): names trimmed, postal codes normalized
 * and each once. Two zones of one name are refused (400 on the second's `name`): guests tell zones
 * apart by name.
 */
export function storedZones(zones: readonly DeliveryZone[]): DeliveryZone[] {
  const names = new Set<string>();
  return zones.map((zone, index) => {
    const name = zone.name.trim();
    const key = name.toLocaleLowerCase();
    if (name === '' || names.has(key))
      throw new ApiError(
        'invalid_request',
        name === '' ? 'A zone needs a name.' : `Another zone is named ${name}.`,
        { param: `delivery_zones[${index}].name` },
      );
    names.add(key);
    return { ...zone, name, postal_codes: [...new Set(zone.postal_codes.map(normalizedPostalCode))] };
  });
}
