import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type AllergenKey,
  allergenNames,
  type NameLanguage,
  nameLanguages,
} from '../../src/domain/menu/allergen-names.ts';
import { type DietKey, dietNames } from '../../src/domain/menu/diet-names.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';

/*
 * A product's allergens and diets through POST /v1/menu/products (issue 12, item 6; spec: Product):
 * common names in English, German, French, Spanish and Italian become the key, whatever their case
 * and accents; other text is kept as the restaurant's own label; repeats are dropped; the limits;
 * the lists are never mixed: a diet name among the allergens is an own allergen label, an allergen
 * name among the diets an own diet label. Every other write path: label-write-paths.test.ts.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

// A connection may make 120 requests a minute: a fresh tenant every 100 requests.
let tenant: Tenant | undefined;
let sent = 0;
async function token(): Promise<string> {
  if (!tenant || sent >= 100) {
    tenant = await makeTenant(t.ctx);
    sent = 0;
  }
  sent += 1;
  return tenant.token;
}

async function createProduct(fields: { allergens?: string[]; diets?: string[] }) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/menu/products',
    headers: { ...bearer(await token()), 'content-type': 'application/json' },
    payload: { name: 'Pretzel', price: 350, ...fields },
  });
}

/** The product as created (201). */
// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
async function created(fields: { allergens?: string[]; diets?: string[] }): Promise<any> {
  const res = await createProduct(fields);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const allergensOf = async (allergens: string[]): Promise<string[]> =>
  (await created({ allergens })).allergens;
const dietsOf = async (diets: string[]): Promise<string[]> => (await created({ diets })).diets;

async function assertRefused(fields: { allergens?: string[]; diets?: string[] }, param: string) {
  const res = await createProduct(fields);
  assert.equal(res.statusCode, 400, res.body);
  const { error } = res.json() as { error: { code: string; param?: string } };
  assert.equal(error.code, 'invalid_request');
  assert.equal(error.param, param);
}

const ownLabels = (count: number, prefix = 'Own label') =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`);

/*
 * Names as menus write them, per language and key: the regulation's wording, singular and plural,
 * capitals, accents left out or added, umlauts written out, whitespace doubled.
 */
const allergenExamples: Record<NameLanguage, Record<AllergenKey, string[]>> = {
  en: {
    gluten: [
      'Gluten',
      'CEREALS CONTAINING GLUTEN',
      'wheat',
      'Rye',
      'barley',
      'Oats',
      'spelt',
      'Khorasan wheat',
    ],
    crustaceans: ['Crustaceans', 'crustacean', 'CRUSTACEANS AND PRODUCTS THEREOF'],
    eggs: ['Eggs', 'egg', 'EGGS'],
    fish: ['Fish', 'FISH'],
    peanuts: ['Peanuts', 'peanut', 'PEANUTS', 'groundnuts'],
    soybeans: ['Soybeans', 'soya', 'Soy', 'SOYA BEANS'],
    milk: ['Milk', 'dairy', 'Lactose', 'MILK AND PRODUCTS THEREOF'],
    nuts: [
      'Nuts',
      'tree nuts',
      'Almonds',
      'hazelnut',
      'WALNUTS',
      'cashews',
      'Pecan nuts',
      'Brazil nuts',
      'pistachios',
      'Macadamia nuts',
      'Queensland nuts',
    ],
    celery: ['Celery', 'celeriac'],
    mustard: ['Mustard', 'MUSTARD'],
    sesame: ['Sesame', 'sesame seeds', 'Sesame  Seeds'],
    sulphites: ['Sulphites', 'sulfites', 'Sulphur dioxide', 'SULFUR DIOXIDE AND SULFITES', 'SO2'],
    lupin: ['Lupin', 'lupins', 'Lupine'],
    molluscs: ['Molluscs', 'mollusks', 'MOLLUSC'],
  },
  de: {
    gluten: [
      'Gluten',
      'Glutenhaltiges Getreide',
      'GLUTENHALTIGES GETREIDE',
      'Weizen',
      'roggen',
      'Gerste',
      'Hafer',
      'Dinkel',
      'Khorasan-Weizen',
    ],
    crustaceans: ['Krebstiere', 'krustentiere', 'KREBSTIERE UND KREBSTIERERZEUGNISSE'],
    eggs: ['Eier', 'ei', 'Eier und Eiererzeugnisse'],
    fish: ['Fisch', 'Fische', 'FISCHE UND FISCHERZEUGNISSE'],
    peanuts: ['Erdnüsse', 'ERDNÜSSE', 'ERDNUSSE', 'Erdnuesse', 'erdnuss'],
    soybeans: ['Soja', 'Sojabohnen', 'SOJABOHNEN UND SOJABOHNENERZEUGNISSE'],
    milk: ['Milch', 'Laktose', 'Milcherzeugnisse', 'Milch und Milcherzeugnisse (EINSCHLIESSLICH Laktose)'],
    nuts: [
      'Schalenfrüchte',
      'SCHALENFRUCHTE',
      'Schalenfruechte',
      'Nüsse',
      'NUSSE',
      'Mandeln',
      'Haselnüsse',
      'Haselnuesse',
      'Walnuss',
      'Cashewnüsse',
      'Pistazien',
    ],
    celery: ['Sellerie', 'SELLERIE', 'Knollensellerie'],
    mustard: ['Senf', 'senf und senferzeugnisse'],
    sesame: ['Sesam', 'Sesamsamen', 'SESAMSAMEN'],
    sulphites: ['Schwefeldioxid und Sulfite', 'SCHWEFELDIOXID  UND  SULPHITE', 'Sulfite', 'schwefeldioxid'],
    lupin: ['Lupinen', 'lupine', 'LUPINEN'],
    molluscs: ['Weichtiere', 'WEICHTIERE', 'Mollusken'],
  },
  fr: {
    gluten: [
      'Gluten',
      'Céréales contenant du gluten',
      'CEREALES CONTENANT DU GLUTEN',
      'blé',
      'BLE',
      'seigle',
      'orge',
      'Avoine',
      'Épeautre',
      'epeautre',
    ],
    crustaceans: ['Crustacés', 'crustaces', 'CRUSTACÉS'],
    eggs: ['Œufs', 'oeufs', 'ŒUF', 'OEUFS', 'Œufs et produits à base d’œufs'],
    fish: ['Poisson', 'poissons', 'POISSONS'],
    peanuts: ['Arachides', 'arachide', 'Cacahuètes', 'CACAHUETES', 'cacahouètes'],
    soybeans: ['Soja', 'SOJA'],
    milk: ['Lait', 'LAIT', 'produits laitiers', 'Lactose'],
    nuts: [
      'Fruits à coque',
      'FRUITS A COQUE',
      'noix',
      'Amandes',
      'noisettes',
      'Noix de cajou',
      'noix de pecan',
      'Noix du Brésil',
      'pistaches',
      'noix de macadamia',
    ],
    celery: ['Céleri', 'celeri', 'CÉLERI'],
    mustard: ['Moutarde', 'MOUTARDE'],
    sesame: ['Sésame', 'sesame', 'Graines de sésame', 'GRAINES DE SESAME'],
    sulphites: ['Anhydride sulfureux et sulfites', 'ANHYDRIDE SULFUREUX', 'Sulfites', 'dioxyde de soufre'],
    lupin: ['Lupin', 'LUPINS'],
    molluscs: ['Mollusques', 'mollusque', 'MOLLUSQUES'],
  },
  es: {
    gluten: [
      'Gluten',
      'Cereales que contengan gluten',
      'cereales con gluten',
      'Trigo',
      'centeno',
      'CEBADA',
      'avena',
      'Espelta',
    ],
    crustaceans: ['Crustáceos', 'crustaceos', 'CRUSTÁCEOS'],
    eggs: ['Huevos', 'huevo', 'HUEVOS'],
    fish: ['Pescado', 'PESCADO'],
    peanuts: ['Cacahuetes', 'cacahuete', 'Maní', 'MANI', 'cacahuates'],
    soybeans: ['Soja', 'soya'],
    milk: ['Leche', 'LECHE', 'Lácteos', 'lactosa'],
    nuts: [
      'Frutos de cáscara',
      'FRUTOS DE CASCARA',
      'frutos secos',
      'Almendras',
      'avellanas',
      'Nueces',
      'anacardos',
      'Pistachos',
      'nueces de macadamia',
    ],
    celery: ['Apio', 'APIO'],
    mustard: ['Mostaza', 'MOSTAZA'],
    sesame: ['Sésamo', 'SÉSAMO', 'sesamo', 'Granos de sésamo', 'ajonjoli'],
    sulphites: ['Dióxido de azufre y sulfitos', 'DIOXIDO DE AZUFRE', 'sulfitos'],
    lupin: ['Altramuces', 'altramuz', 'ALTRAMUCES'],
    molluscs: ['Moluscos', 'molusco', 'MOLUSCOS'],
  },
  it: {
    gluten: [
      'Glutine',
      'Cereali contenenti glutine',
      'CEREALI CONTENENTI GLUTINE',
      'grano',
      'Frumento',
      'segale',
      'Orzo',
      'avena',
      'Farro',
    ],
    crustaceans: ['Crostacei', 'CROSTACEI', 'crostaceo'],
    eggs: ['Uova', 'uovo', 'UOVA'],
    fish: ['Pesce', 'PESCE'],
    peanuts: ['Arachidi', 'ARACHIDI', 'noccioline'],
    soybeans: ['Soia', 'SOIA'],
    milk: ['Latte', 'LATTE', 'Lattosio', 'latticini'],
    nuts: [
      'Frutta a guscio',
      'FRUTTA A GUSCIO',
      'frutta secca',
      'Mandorle',
      'nocciole',
      'Noci',
      'Anacardi',
      'pistacchi',
      'Noci di acagiù',
      'noci di acagiu',
    ],
    celery: ['Sedano', 'SEDANO'],
    mustard: ['Senape', 'SENAPE'],
    sesame: ['Sesamo', 'semi di sesamo', 'SEMI DI SESAMO'],
    sulphites: ['Anidride solforosa e solfiti', 'ANIDRIDE SOLFOROSA', 'Solfiti'],
    lupin: ['Lupini', 'LUPINI', 'lupino'],
    molluscs: ['Molluschi', 'MOLLUSCHI', 'mollusco'],
  },
};

const dietExamples: Record<NameLanguage, Record<DietKey, string[]>> = {
  en: {
    vegetarian: ['Vegetarian', 'VEGETARIAN'],
    vegan: ['Vegan', 'VEGAN'],
    gluten_free: ['Gluten-free', 'gluten free', 'GLUTEN-FREE'],
    lactose_free: ['Lactose-free', 'LACTOSE FREE'],
    halal: ['Halal', 'HALAL'],
    kosher: ['Kosher', 'KOSHER'],
  },
  de: {
    vegetarian: ['Vegetarisch', 'VEGETARISCH'],
    vegan: ['Vegan', 'vegane'],
    gluten_free: ['Glutenfrei', 'GLUTENFREI', 'ohne Gluten'],
    lactose_free: ['Laktosefrei', 'LAKTOSEFREI', 'lactosefrei'],
    halal: ['Halal'],
    kosher: ['Koscher', 'KOSCHER'],
  },
  fr: {
    vegetarian: ['Végétarien', 'vegetarienne', 'VÉGÉTARIENNE'],
    vegan: ['Végétalien', 'végétalienne', 'VEGETALIEN', 'Végan', 'vegane'],
    gluten_free: ['Sans gluten', 'SANS GLUTEN'],
    lactose_free: ['Sans lactose', 'SANS LACTOSE'],
    halal: ['Halal'],
    kosher: ['Casher', 'kasher', 'CACHER'],
  },
  es: {
    vegetarian: ['Vegetariano', 'vegetariana', 'VEGETARIANO'],
    vegan: ['Vegano', 'vegana', 'VEGANO'],
    gluten_free: ['Sin gluten', 'SIN GLUTEN'],
    lactose_free: ['Sin lactosa', 'SIN LACTOSA'],
    halal: ['Halal'],
    kosher: ['Kosher', 'kósher'],
  },
  it: {
    vegetarian: ['Vegetariano', 'vegetariana', 'VEGETARIANI'],
    vegan: ['Vegano', 'vegana', 'VEGANO'],
    gluten_free: ['Senza glutine', 'SENZA GLUTINE'],
    lactose_free: ['Senza lattosio', 'SENZA LATTOSIO'],
    halal: ['Halal'],
    kosher: ['Kosher', 'KOSHER'],
  },
};

describe('allergen names become keys, in each language, whatever their case and accents', () => {
  for (const language of nameLanguages) {
    describe(language, () => {
      for (const [key, names] of Object.entries(allergenExamples[language])) {
        test(`${names.map((name) => JSON.stringify(name)).join(', ')} → ${key}`, async () => {
          assert.deepEqual(await allergensOf(names), [key]);
        });
      }
      test('all keys at once, in the order of their first name', async () => {
        const firstNames = Object.values(allergenExamples[language]).map((names) => names[0] as string);
        assert.deepEqual(
          await allergensOf(firstNames.toReversed()),
          Object.keys(allergenExamples[language]).toReversed(),
        );
      });
    });
  }

  test('each key is a name of itself', async () => {
    assert.deepEqual(await allergensOf(['gluten', 'CRUSTACEANS', ' Sulphites ', 'lupin']), [
      'gluten',
      'crustaceans',
      'sulphites',
      'lupin',
    ]);
  });

  test('every name of the synonym table, per key (names longer than an own label may be included)', async () => {
    for (const [key, byLanguage] of Object.entries(allergenNames)) {
      const names = nameLanguages.flatMap((language) => byLanguage[language]);
      for (let start = 0; start < names.length; start += 34) {
        const chunk = names.slice(start, start + 34);
        assert.deepEqual(await allergensOf(chunk), [key], `${key}: ${chunk.join(' | ')}`);
      }
    }
  });

  test('a known name over 40 characters is its key, not a refused own label', async () => {
    assert.deepEqual(await allergensOf(['Crustáceos y productos a base de crustáceos']), ['crustaceans']);
    assert.deepEqual(await allergensOf(['Graines de sésame et produits à base de graines de sésame']), [
      'sesame',
    ]);
  });

  test('names of more than one key, and things outside Annex II, stay own labels', async () => {
    const labels = [
      'Shellfish',
      'Meeresfrüchte',
      'Fruits de mer',
      'Pinienkerne',
      'Noix de coco',
      'Reis',
      'Getreide',
    ];
    assert.deepEqual(await allergensOf(labels), labels);
  });
});

describe('own allergen labels', () => {
  test('are kept as sent, trimmed, between the keys and in order', async () => {
    assert.deepEqual(
      await allergensOf([
        'Weizen',
        '  Kann Spuren von Nüssen enthalten ',
        'milk',
        'Pinienkerne  (geröstet)',
        'E 621',
      ]),
      ['gluten', 'Kann Spuren von Nüssen enthalten', 'milk', 'Pinienkerne  (geröstet)', 'E 621'],
    );
  });

  test('up to 20, of up to 40 characters (counted as characters, not UTF-16 units), with all 14 keys: 34', async () => {
    const keysInGerman = Object.values(allergenExamples.de).map((names) => names[0] as string);
    const labels = [...ownLabels(19), '🥨'.repeat(40)];
    const allergens = await allergensOf([...keysInGerman, ...labels]);
    assert.equal(allergens.length, 34);
    assert.deepEqual(allergens, [...Object.keys(allergenExamples.de), ...labels]);
  });

  test('21 own labels → 400 allergens', async () => {
    await assertRefused({ allergens: ['milk', ...ownLabels(21)] }, 'allergens');
  });

  test('an own label of 41 characters → 400 naming it', async () => {
    await assertRefused({ allergens: ['x'.repeat(41)] }, 'allergens[0]');
    await assertRefused({ allergens: ['gluten', 'eggs', '🥨'.repeat(41)] }, 'allergens[2]');
  });

  test('a blank value → 400 naming it', async () => {
    await assertRefused({ allergens: [''] }, 'allergens[0]');
    await assertRefused({ allergens: ['milk', '   '] }, 'allergens[1]');
  });
});

describe('repeated allergens', () => {
  test('are dropped after mapping, the first kept; own labels compared without regard to case', async () => {
    assert.deepEqual(
      await allergensOf([
        'Erdnüsse',
        'peanuts',
        'ARACHIDES',
        'Hausgemacht',
        'HAUSGEMACHT',
        ' hausgemacht ',
        'Milch',
        'lait',
        'Milk',
      ]),
      ['peanuts', 'Hausgemacht', 'milk'],
    );
  });

  test('a repeated own label does not count against the 20', async () => {
    const allergens = await allergensOf([...ownLabels(20), 'OWN LABEL 20', 'own label 1']);
    assert.deepEqual(allergens, ownLabels(20));
  });

  test('still count against the 34 values a body may hold: 35 → 400 allergens', async () => {
    await assertRefused({ allergens: Array.from({ length: 35 }, () => 'milk') }, 'allergens');
    assert.deepEqual(await allergensOf(Array.from({ length: 34 }, () => 'milk')), ['milk']);
  });
});

describe('diet names become keys, in each language, whatever their case and accents', () => {
  for (const language of nameLanguages) {
    describe(language, () => {
      for (const [key, names] of Object.entries(dietExamples[language])) {
        test(`${names.map((name) => JSON.stringify(name)).join(', ')} → ${key}`, async () => {
          assert.deepEqual(await dietsOf(names), [key]);
        });
      }
    });
  }

  test('each key is a name of itself', async () => {
    assert.deepEqual(await dietsOf(['gluten_free', 'LACTOSE_FREE', ' vegan ']), [
      'gluten_free',
      'lactose_free',
      'vegan',
    ]);
  });

  test('every name of the synonym table, per key', async () => {
    for (const [key, byLanguage] of Object.entries(dietNames)) {
      const names = nameLanguages.flatMap((language) => byLanguage[language]);
      for (let start = 0; start < names.length; start += 20) {
        const chunk = names.slice(start, start + 20);
        assert.deepEqual(await dietsOf(chunk), [key], `${key}: ${chunk.join(' | ')}`);
      }
    }
  });
});

describe('own diet labels', () => {
  test('are kept as sent, trimmed; "dairy-free" is no lactose_free and stays an own label', async () => {
    assert.deepEqual(await dietsOf(['Végétarien', ' Ohne Zwiebeln und Knoblauch ', 'dairy-free', 'Paleo']), [
      'vegetarian',
      'Ohne Zwiebeln und Knoblauch',
      'dairy-free',
      'Paleo',
    ]);
  });

  test('repeats are dropped, the first kept', async () => {
    assert.deepEqual(await dietsOf(['vegan', 'Végétalien', 'VEGANO', 'Paleo', 'PALEO', 'vegetarisch']), [
      'vegan',
      'Paleo',
      'vegetarian',
    ]);
  });

  test('up to 14 own labels of up to 60 characters, with the 6 keys: 20 values', async () => {
    const labels = [...ownLabels(13), 'y'.repeat(60)];
    const keys = ['Vegetarisch', 'vegan', 'sans gluten', 'sin lactosa', 'halal', 'kosher'];
    assert.deepEqual(await dietsOf([...keys, ...labels]), [
      'vegetarian',
      'vegan',
      'gluten_free',
      'lactose_free',
      'halal',
      'kosher',
      ...labels,
    ]);
  });

  test('15 own labels → 400 diets', async () => {
    await assertRefused({ diets: ownLabels(15) }, 'diets');
  });

  test('an own label of 61 characters → 400 naming it', async () => {
    await assertRefused({ diets: ['vegan', 'y'.repeat(61)] }, 'diets[1]');
  });

  test('more than 20 values in the body → 400 diets, repeats included', async () => {
    await assertRefused({ diets: Array.from({ length: 21 }, () => 'vegan') }, 'diets');
  });

  test('a blank value → 400 naming it', async () => {
    await assertRefused({ diets: ['vegan', ' '] }, 'diets[1]');
  });
});

describe('allergens and diets are never mixed (issue 26, item 3)', () => {
  for (const [index, name] of [
    'vegan',
    'Gluten-free',
    'glutenfrei',
    'SANS GLUTEN',
    'Laktosefrei',
    'halal',
    'Végétarien',
  ].entries()) {
    test(`a diet name in allergens, ${JSON.stringify(name)}, is kept verbatim as an own allergen label`, async () => {
      const allergens = ['milk', ...ownLabels(index), name];
      const product = await created({ allergens });
      assert.deepEqual(product.allergens, allergens);
      assert.deepEqual(product.diets, []);
    });
  }

  for (const [index, name] of [
    'milk',
    'Erdnüsse',
    'Gluten',
    'lactose',
    'Weizen',
    'fruits à coque',
    'SÉSAMO',
  ].entries()) {
    test(`an allergen name in diets, ${JSON.stringify(name)}, is kept verbatim as an own diet label`, async () => {
      const diets = ['vegan', ...ownLabels(index), name];
      const product = await created({ diets });
      assert.deepEqual(product.diets, diets);
      assert.deepEqual(product.allergens, []);
    });
  }

  test('such labels count against the list’s own labels: 20 allergens, 14 diets, then 400', async () => {
    const allergens = ['milk', ...ownLabels(19), 'vegan'];
    assert.deepEqual((await created({ allergens })).allergens, allergens);
    await assertRefused({ allergens: ['milk', ...ownLabels(20), 'vegan'] }, 'allergens');
    const diets = ['vegan', ...ownLabels(13), 'milk'];
    assert.deepEqual((await created({ diets })).diets, diets);
    await assertRefused({ diets: ['vegan', ...ownLabels(14), 'milk'] }, 'diets');
  });

  test('and their length: 40 characters an allergen label, 60 a diet label', async () => {
    await assertRefused({ allergens: ['vegan', `vegan ${'x'.repeat(35)}`] }, 'allergens[1]');
    await assertRefused({ diets: ['milk', `milk ${'x'.repeat(56)}`] }, 'diets[1]');
  });

  test('the same product takes both lists, each normalized', async () => {
    const product = await created({
      allergens: ['Weizen', 'Milch', 'Eier'],
      diets: ['Vegetarisch', 'ohne Zwiebeln'],
    });
    assert.deepEqual(product.allergens, ['gluten', 'milk', 'eggs']);
    assert.deepEqual(product.diets, ['vegetarian', 'ohne Zwiebeln']);
  });

  test('"gluten" is an allergen and "gluten-free" a diet: both accepted in their own list', async () => {
    const product = await created({ allergens: ['Gluten'], diets: ['Gluten-free'] });
    assert.deepEqual(product.allergens, ['gluten']);
    assert.deepEqual(product.diets, ['gluten_free']);
  });

  test('a product created without either has empty lists', async () => {
    const product = await created({});
    assert.deepEqual(product.allergens, []);
    assert.deepEqual(product.diets, []);
  });
});
