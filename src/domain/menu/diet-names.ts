import { nameMatchForm, type SynonymTable, synonymIndex } from './allergen-names.ts';

/*
 * The 6 diet keys of a product (spec: Product) and their common names in English, German, French,
 * Spanish and Italian, matched as allergen names are (allergen-names.ts: case, accents, ligatures,
 * whitespace; German umlauts also written out):
 * - each key is also a name of itself; adjectives in every gender and number;
 * - "dairy-free", "milchfrei", "sans produits laitiers" are not `lactose_free`: free of milk is
 *   more than free of lactose, so they stay the restaurant's own labels; likewise "plant-based",
 *   "pflanzlich" are not `vegan`.
 */

export const dietKeys = ['vegetarian', 'vegan', 'gluten_free', 'lactose_free', 'halal', 'kosher'] as const;

export type DietKey = (typeof dietKeys)[number];

export const dietNames: SynonymTable<DietKey> = {
  vegetarian: {
    en: ['vegetarian'],
    de: ['vegetarisch', 'vegetarische', 'vegetarischer', 'vegetarisches'],
    fr: ['végétarien', 'végétarienne', 'végétariens', 'végétariennes'],
    es: ['vegetariano', 'vegetariana', 'vegetarianos', 'vegetarianas'],
    it: ['vegetariano', 'vegetariana', 'vegetariani', 'vegetariane'],
  },
  // French says "végétalien" as well as "végan" for vegan.
  vegan: {
    en: ['vegan'],
    de: ['vegan', 'vegane', 'veganer', 'veganes'],
    fr: [
      'végan',
      'végane',
      'végans',
      'véganes',
      'végétalien',
      'végétalienne',
      'végétaliens',
      'végétaliennes',
    ],
    es: ['vegano', 'vegana', 'veganos', 'veganas'],
    it: ['vegano', 'vegana', 'vegani', 'vegane'],
  },
  gluten_free: {
    en: ['gluten-free', 'gluten free', 'glutenfree', 'without gluten'],
    de: ['glutenfrei', 'glutenfreie', 'glutenfreier', 'glutenfreies', 'ohne Gluten'],
    fr: ['sans gluten'],
    es: ['sin gluten', 'libre de gluten'],
    it: ['senza glutine', 'privo di glutine'],
  },
  lactose_free: {
    en: ['lactose-free', 'lactose free', 'lactosefree', 'without lactose'],
    de: ['laktosefrei', 'laktosefreie', 'laktosefreier', 'laktosefreies', 'lactosefrei', 'ohne Laktose'],
    fr: ['sans lactose'],
    es: ['sin lactosa', 'libre de lactosa'],
    it: ['senza lattosio', 'privo di lattosio', 'delattosato'],
  },
  halal: {
    en: ['halal'],
    de: ['halal'],
    fr: ['halal'],
    es: ['halal'],
    it: ['halal'],
  },
  // "casher", "cacher" and "kasher" are all current French spellings.
  kosher: {
    en: ['kosher'],
    de: ['koscher'],
    fr: ['casher', 'cacher', 'kasher', 'kascher'],
    es: ['kosher', 'kósher'],
    it: ['kosher', 'kasher'],
  },
};

const dietIndex = synonymIndex(dietNames);

/** The diet key a name stands for, in any of the five languages; null when it names none. */
export function dietKeyOf(name: string): DietKey | null {
  // A key as sent is its own match form: found without making one.
  return dietIndex.get(name) ?? dietIndex.get(nameMatchForm(name)) ?? null;
}
