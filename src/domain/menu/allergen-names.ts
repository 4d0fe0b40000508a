/*
 * The 14 allergen keys of a product (spec: Product; EU Regulation 1169/2011, Annex II) and their
 * common names in English, German, French, Spanish and Italian:
 * - each key is also a name of itself;
 * - the names are the regulation's official wordings (its item titles, with and without "and
 *   products thereof") and the usual menu labels, singular and plural;
 * - matching ignores case, accents, ligatures (œ, æ, ß), inner runs of whitespace and the
 *   surrounding space; German names also match with umlauts written out (Erdnuesse);
 * - no name may belong to two keys: the index below refuses to load otherwise.
 *
 * Grains and single nuts. Annex II names them inside two items: "cereals containing gluten, namely:
 * wheat (such as spelt and khorasan wheat), rye, barley, oats" and "nuts, namely: almonds,
 * hazelnuts, walnuts, cashews, pecan nuts, Brazil nuts, pistachio nuts, macadamia or Queensland
 * nuts". A menu that declares "Weizen" or "Haselnüsse" therefore declares that allergen, so these
 * names map to `gluten` and `nuts`. Kept as own labels they would hide a product from a guest who
 * filters on the key, which is the dangerous way to be wrong; the price is that the grain or nut
 * itself is not kept. Names outside those lists stay own labels: rice, maize, buckwheat, coconut,
 * pine nuts, chestnuts, nutmeg.
 *
 * Not mapped, because they name more than one key: "shellfish", "seafood", "Meeresfrüchte",
 * "fruits de mer", "mariscos", "frutti di mare" (crustaceans and molluscs); "Getreide", "cereals"
 * (also rice and maize).
 */

export const allergenKeys = [
  'gluten',
  'crustaceans',
  'eggs',
  'fish',
  'peanuts',
  'soybeans',
  'milk',
  'nuts',
  'celery',
  'mustard',
  'sesame',
  'sulphites',
  'lupin',
  'molluscs',
] as const;

export type AllergenKey = (typeof allergenKeys)[number];

export const nameLanguages = ['en', 'de', 'fr', 'es', 'it'] as const;
export type NameLanguage = (typeof nameLanguages)[number];

export type SynonymTable<Key extends string> = Readonly<
  Record<Key, Readonly<Record<NameLanguage, readonly string[]>>>
>;

export const allergenNames: SynonymTable<AllergenKey> = {
  gluten: {
    en: [
      'gluten',
      'cereals containing gluten',
      'gluten-containing cereals',
      'cereals with gluten',
      'wheat',
      'rye',
      'barley',
      'oats',
      'oat',
      'spelt',
      'khorasan wheat',
      'khorasan',
      'kamut',
    ],
    de: [
      'Gluten',
      'glutenhaltiges Getreide',
      'glutenhaltige Getreide',
      'glutenhaltige Getreidesorten',
      'Weizen',
      'Roggen',
      'Gerste',
      'Hafer',
      'Dinkel',
      'Khorasan-Weizen',
      'Kamut',
    ],
    fr: [
      'gluten',
      'céréales contenant du gluten',
      'céréales avec gluten',
      'blé',
      'seigle',
      'orge',
      'avoine',
      'épeautre',
      'blé de khorasan',
      'kamut',
    ],
    es: [
      'gluten',
      'cereales que contengan gluten',
      'cereales que contienen gluten',
      'cereales con gluten',
      'trigo',
      'centeno',
      'cebada',
      'avena',
      'espelta',
      'trigo khorasan',
      'kamut',
    ],
    it: [
      'glutine',
      'cereali contenenti glutine',
      'cereali con glutine',
      'grano',
      'frumento',
      'segale',
      'orzo',
      'avena',
      'farro',
      'grano khorasan',
      'kamut',
    ],
  },
  crustaceans: {
    en: ['crustaceans', 'crustacean', 'crustaceans and products thereof'],
    de: ['Krebstiere', 'Krebstier', 'Krustentiere', 'Krustentier', 'Krebstiere und Krebstiererzeugnisse'],
    fr: ['crustacés', 'crustacé', 'crustacés et produits à base de crustacés'],
    es: ['crustáceos', 'crustáceo', 'crustáceos y productos a base de crustáceos'],
    it: ['crostacei', 'crostaceo', 'crostacei e prodotti a base di crostacei'],
  },
  eggs: {
    en: ['eggs', 'egg', 'eggs and products thereof'],
    de: ['Eier', 'Ei', 'Eier und Eiererzeugnisse'],
    fr: ['œufs', 'œuf', 'œufs et produits à base d’œufs', "œufs et produits à base d'œufs"],
    es: ['huevos', 'huevo', 'huevos y productos a base de huevo'],
    it: ['uova', 'uovo', 'uova e prodotti a base di uova'],
  },
  fish: {
    en: ['fish', 'fish and products thereof'],
    de: ['Fisch', 'Fische', 'Fische und Fischerzeugnisse'],
    fr: ['poisson', 'poissons', 'poissons et produits à base de poissons'],
    es: ['pescado', 'pescados', 'pescado y productos a base de pescado'],
    it: ['pesce', 'pesci', 'pesce e prodotti a base di pesce'],
  },
  peanuts: {
    en: ['peanuts', 'peanut', 'groundnuts', 'groundnut', 'peanuts and products thereof'],
    de: ['Erdnüsse', 'Erdnuss', 'Erdnüsse und Erdnusserzeugnisse'],
    fr: [
      'arachides',
      'arachide',
      'cacahuètes',
      'cacahuète',
      'cacahouètes',
      'cacahouète',
      'arachides et produits à base d’arachides',
      "arachides et produits à base d'arachides",
    ],
    es: [
      'cacahuetes',
      'cacahuete',
      'cacahuates',
      'cacahuate',
      'maní',
      'manís',
      'manises',
      'cacahuetes y productos a base de cacahuetes',
    ],
    // "noccioline" is the everyday Italian word for peanuts (hazelnuts are "nocciole").
    it: [
      'arachidi',
      'arachide',
      'noccioline',
      'noccioline americane',
      'arachidi e prodotti a base di arachidi',
    ],
  },
  soybeans: {
    en: [
      'soybeans',
      'soybean',
      'soya beans',
      'soya bean',
      'soy beans',
      'soya',
      'soy',
      'soybeans and products thereof',
    ],
    de: ['Soja', 'Sojabohnen', 'Sojabohne', 'Sojabohnen und Sojabohnenerzeugnisse'],
    fr: ['soja', 'graines de soja', 'soja et produits à base de soja'],
    es: ['soja', 'soya', 'soja y productos a base de soja'],
    it: ['soia', 'semi di soia', 'soia e prodotti a base di soia'],
  },
  // Annex II: "milk and products thereof (including lactose)"; so lactose is milk.
  milk: {
    en: ['milk', 'dairy', 'milk products', 'dairy products', 'lactose', 'milk and products thereof'],
    de: [
      'Milch',
      'Milchprodukte',
      'Milcherzeugnisse',
      'Laktose',
      'Lactose',
      'Milch und Milcherzeugnisse',
      'Milch und Milcherzeugnisse (einschließlich Laktose)',
    ],
    fr: ['lait', 'produits laitiers', 'lactose', 'lait et produits à base de lait'],
    es: ['leche', 'lácteos', 'productos lácteos', 'lactosa', 'leche y derivados', 'leche y sus derivados'],
    it: ['latte', 'latticini', 'lattosio', 'derivati del latte', 'latte e prodotti a base di latte'],
  },
  // Tree nuts; peanuts are a key of their own. "frutos secos" and "frutta secca" are how Spanish and
  // Italian allergen lists commonly say nuts.
  nuts: {
    en: [
      'nuts',
      'nut',
      'tree nuts',
      'tree nut',
      'nuts and products thereof',
      'almonds',
      'almond',
      'hazelnuts',
      'hazelnut',
      'walnuts',
      'walnut',
      'cashews',
      'cashew',
      'cashew nuts',
      'pecans',
      'pecan',
      'pecan nuts',
      'brazil nuts',
      'brazil nut',
      'pistachios',
      'pistachio',
      'pistachio nuts',
      'macadamia nuts',
      'macadamia',
      'macadamias',
      'queensland nuts',
    ],
    de: [
      'Schalenfrüchte',
      'Schalenfrucht',
      'Schalenobst',
      'Nüsse',
      'Nuss',
      'Schalenfrüchte und daraus hergestellte Erzeugnisse',
      'Mandeln',
      'Mandel',
      'Haselnüsse',
      'Haselnuss',
      'Walnüsse',
      'Walnuss',
      'Cashewnüsse',
      'Cashewnuss',
      'Cashewkerne',
      'Cashews',
      'Kaschunüsse',
      'Kaschunuss',
      'Pekannüsse',
      'Pekannuss',
      'Pecannüsse',
      'Pecannuss',
      'Paranüsse',
      'Paranuss',
      'Pistazien',
      'Pistazie',
      'Macadamianüsse',
      'Macadamianuss',
      'Queenslandnüsse',
    ],
    fr: [
      'fruits à coque',
      'fruit à coque',
      'fruits à coques',
      'fruits à coque et produits à base de ces fruits',
      'noix',
      'amandes',
      'amande',
      'noisettes',
      'noisette',
      'noix de cajou',
      'noix de pécan',
      'noix du brésil',
      'pistaches',
      'pistache',
      'noix de macadamia',
      'noix du queensland',
    ],
    es: [
      'frutos de cáscara',
      'fruto de cáscara',
      'frutos secos',
      'frutos de cáscara y productos derivados',
      'nueces',
      'nuez',
      'almendras',
      'almendra',
      'avellanas',
      'avellana',
      'anacardos',
      'anacardo',
      'pacanas',
      'pacana',
      'nueces pecanas',
      'nueces de pecán',
      'nueces de brasil',
      'nuez de brasil',
      'pistachos',
      'pistacho',
      'alfóncigos',
      'nueces de macadamia',
      'nueces macadamia',
      'nueces de australia',
    ],
    it: [
      'frutta a guscio',
      'frutta secca',
      'frutta secca a guscio',
      'frutta a guscio e prodotti derivati',
      'noci',
      'noce',
      'mandorle',
      'mandorla',
      'nocciole',
      'nocciola',
      'anacardi',
      'anacardo',
      'noci di acagiù',
      'noci di anacardi',
      'noci pecan',
      'noci di pecan',
      'noci del brasile',
      'pistacchi',
      'pistacchio',
      'noci macadamia',
      'noci di macadamia',
      'noci del queensland',
    ],
  },
  celery: {
    en: ['celery', 'celeriac', 'celery and products thereof'],
    de: ['Sellerie', 'Knollensellerie', 'Staudensellerie', 'Sellerie und Sellerieerzeugnisse'],
    fr: ['céleri', 'céleri-rave', 'céleri et produits à base de céleri'],
    es: ['apio', 'apionabo', 'apio y productos derivados'],
    it: ['sedano', 'sedano rapa', 'sedano e prodotti a base di sedano'],
  },
  mustard: {
    en: ['mustard', 'mustard seeds', 'mustard and products thereof'],
    de: ['Senf', 'Senfsaat', 'Senfkörner', 'Senf und Senferzeugnisse'],
    fr: ['moutarde', 'graines de moutarde', 'moutarde et produits à base de moutarde'],
    es: ['mostaza', 'semillas de mostaza', 'mostaza y productos derivados'],
    it: ['senape', 'semi di senape', 'senape e prodotti a base di senape'],
  },
  sesame: {
    en: ['sesame', 'sesame seeds', 'sesame seed', 'sesame seeds and products thereof'],
    de: ['Sesam', 'Sesamsamen', 'Sesamsaat', 'Sesamsamen und Sesamsamenerzeugnisse'],
    fr: ['sésame', 'graines de sésame', 'graines de sésame et produits à base de graines de sésame'],
    es: [
      'sésamo',
      'granos de sésamo',
      'semillas de sésamo',
      'ajonjolí',
      'granos de sésamo y productos a base de granos de sésamo',
    ],
    it: ['sesamo', 'semi di sesamo', 'semi di sesamo e prodotti a base di semi di sesamo'],
  },
  // The German text of the regulation spells "Sulphite"; menus mostly write "Sulfite".
  sulphites: {
    en: [
      'sulphites',
      'sulphite',
      'sulfites',
      'sulfite',
      'sulphur dioxide',
      'sulfur dioxide',
      'sulphur dioxide and sulphites',
      'sulfur dioxide and sulfites',
      'SO2',
    ],
    de: [
      'Sulfite',
      'Sulfit',
      'Sulphite',
      'Schwefeldioxid',
      'Schwefeldioxid und Sulfite',
      'Schwefeldioxid und Sulphite',
    ],
    fr: [
      'sulfites',
      'sulfite',
      'anhydride sulfureux',
      'dioxyde de soufre',
      'anhydride sulfureux et sulfites',
    ],
    es: ['sulfitos', 'sulfito', 'dióxido de azufre', 'anhídrido sulfuroso', 'dióxido de azufre y sulfitos'],
    it: [
      'solfiti',
      'solfito',
      'anidride solforosa',
      'biossido di zolfo',
      'diossido di zolfo',
      'anidride solforosa e solfiti',
    ],
  },
  lupin: {
    en: ['lupin', 'lupins', 'lupine', 'lupines', 'lupin and products thereof'],
    de: ['Lupinen', 'Lupine', 'Lupinen und Lupinenerzeugnisse'],
    fr: ['lupin', 'lupins', 'lupin et produits à base de lupin'],
    es: ['altramuces', 'altramuz', 'lupino', 'lupinos', 'altramuces y productos a base de altramuces'],
    it: ['lupini', 'lupino', 'lupini e prodotti a base di lupini'],
  },
  molluscs: {
    en: ['molluscs', 'mollusc', 'mollusks', 'mollusk', 'molluscs and products thereof'],
    de: ['Weichtiere', 'Weichtier', 'Mollusken', 'Weichtiere und Weichtiererzeugnisse'],
    fr: ['mollusques', 'mollusque', 'mollusques et produits à base de mollusques'],
    es: ['moluscos', 'molusco', 'moluscos y productos a base de moluscos'],
    it: ['molluschi', 'mollusco', 'molluschi e prodotti a base di molluschi'],
  },
};

/**
 * The form two names are compared in: lower case, accents dropped (NFD without combining marks),
 * ligatures written out (œ → oe, æ → ae, ß → ss, as "ß" is "SS" in capitals), typographic
 * apostrophes made plain, runs of whitespace made one space, trimmed.
 */
export function nameMatchForm(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/œ/g, 'oe')
    .replace(/æ/g, 'ae')
    .replace(/ß/g, 'ss')
    .replace(/[’ʼ‘]/g, "'")
    .replace(/\s+/gu, ' ')
    .trim();
}

/** German names also as written without umlauts: "Erdnüsse" → "Erdnuesse". */
function umlautsWrittenOut(name: string): string {
  return name.normalize('NFC').toLowerCase().replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue');
}

/** Every name of a table in its match form, to its key; a name of two keys is a mistake in the table. */
export function synonymIndex<Key extends string>(table: SynonymTable<Key>): ReadonlyMap<string, Key> {
  const index = new Map<string, Key>();
  const add = (name: string, key: Key) => {
    const form = nameMatchForm(name);
    const known = index.get(form);
    if (known !== undefined && known !== key)
      throw new Error(`The name "${name}" is given for both ${known} and ${key}.`);
    index.set(form, key);
  };
  for (const key of Object.keys(table) as Key[]) {
    add(key, key);
    for (const language of nameLanguages) {
      for (const name of table[key][language]) {
        add(name, key);
        if (language === 'de') add(umlautsWrittenOut(name), key);
      }
    }
  }
  return index;
}

const allergenIndex = synonymIndex(allergenNames);

/** The allergen key a name stands for, in any of the five languages; null when it names none. */
export function allergenKeyOf(name: string): AllergenKey | null {
  // A key as sent is its own match form: found without making one.
  return allergenIndex.get(name) ?? allergenIndex.get(nameMatchForm(name)) ?? null;
}
