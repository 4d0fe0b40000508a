/*
 * VAT on menu items in the 27 EU countries, the United Kingdom and Switzerland, as of November
 * 2026, in basis points (1 % = 100), for each tax class:
 * - dine_in: the restaurant service (food or drink served to be consumed on the premises);
 * - takeaway: the same item handed over to take away, a supply of goods (food or drink).
 *
 * Sources: the European Commission's "VAT rates applied in the Member States of the European
 * Union" and its Taxes in Europe Database (TEDB); the national tax administrations' notices of the
 * 2025/2026 changes (BE, CZ, DE, FI, IE, SE, SK, RO, EE, BG, LT); HMRC's VAT Notice 709/1
 * "Catering, takeaway food"; the Swiss Federal Tax Administration (FTA/ESTV): MWST-Info 08
 * and the rates from 1 January 2024.
 *
 * What this table enforces:
 * - `null` means "not known for certain": the rate depends on what exactly the item is (e.g. a
 *   bottled soft drink and a coffee to take away are taxed differently) or on facts a menu does
 *   not hold (shelf life, hot or cold). It is never replaced by 0: a 0 here is a real zero rate.
 * - `drink` is a non-alcoholic drink as menus have them: coffee, tea, soft drinks, juices, bottled
 *   water. Where these do not share one rate, the rate is null.
 * - `alcohol` is beer, wine and spirits; where they do not share one rate, the rate is null.
 * - Regional rates are not covered: the country's mainland rate applies (Portugal's Azores and
 *   Madeira, Greek islands with reduced rates; Spain's Canary Islands, Ceuta and Melilla levy no
 *   VAT but IGIC/IPSI).
 * - Temporary rates are marked with their end date; the table must be reviewed then.
 */

import type { TaxClass, TaxRates } from './menu.schema.ts';

type CountryRates = Readonly<Record<TaxClass, Readonly<TaxRates>>>;

function rates(dineIn: number | null, takeaway: number | null): TaxRates {
  return { dine_in_bps: dineIn, takeaway_bps: takeaway };
}

/** The same rate everywhere: countries without a reduced rate for food or restaurants. */
function flat(bps: number): CountryRates {
  return { food: rates(bps, bps), drink: rates(bps, bps), alcohol: rates(bps, bps) };
}

const table: Readonly<Record<string, CountryRates>> = {
  // Austria: restaurant food and takeaway food 10 %; drinks are excluded from the 10 % in
  // gastronomy and as goods (except milk and tap water): 20 %.
  AT: { food: rates(1000, 1000), drink: rates(2000, 2000), alcohol: rates(2000, 2000) },
  // Belgium from 2026-03-01: restaurant service 12 %, now also for non-alcoholic drinks;
  // alcoholic drinks 21 %. Takeaway meals (ready to eat, shelf life of at most two days) 12 %;
  // takeaway drinks are 12 % when prepared on the spot, 6 % in closed containers: null.
  BE: { food: rates(1200, 1200), drink: rates(1200, null), alcohol: rates(2100, 2100) },
  // Bulgaria: the reduced 9 % for restaurant services ended on 2024-12-31; food is 20 %.
  BG: flat(2000),
  // Cyprus: restaurant and catering 9 % except alcohol (19 %). Takeaway food is 5 % or 9 %
  // depending on how it is supplied and soft drinks as goods are not all 5 %: null.
  CY: { food: rates(900, null), drink: rates(900, null), alcohol: rates(1900, 1900) },
  // Czech Republic from 2026-01-01: catering services and non-alcoholic drinks served with them
  // 12 %, food 12 %; alcohol 21 %. Non-alcoholic drinks sold as goods: not all 12 %: null.
  CZ: { food: rates(1200, 1200), drink: rates(1200, null), alcohol: rates(2100, 2100) },
  // Germany from 2026-01-01: food in restaurants and takeaway food 7 % (permanent); drinks are
  // excluded from the restaurant rate (19 %) and, except milk drinks, are 19 % as goods too.
  DE: { food: rates(700, 700), drink: rates(1900, 1900), alcohol: rates(1900, 1900) },
  // Denmark: 25 % on everything.
  DK: flat(2500),
  // Estonia: 24 % from 2025-07-01, no reduced rate for food or restaurants.
  EE: flat(2400),
  // Greece: restaurant food, coffee and non-alcoholic drinks 13 %, as goods 13 %; alcohol 24 %.
  GR: { food: rates(1300, 1300), drink: rates(1300, 1300), alcohol: rates(2400, 2400) },
  // Spain: hospitality services 10 %, alcohol served included; food 10 %. Takeaway drinks: water
  // and juice 10 %, sugared soft drinks 21 %: null. Alcohol as goods 21 %.
  ES: { food: rates(1000, 1000), drink: rates(1000, null), alcohol: rates(1000, 2100) },
  // Finland from 2026-01-01: food and restaurant services 13.5 % (was 14 %); alcohol 25.5 %.
  FI: { food: rates(1350, 1350), drink: rates(1350, 1350), alcohol: rates(2550, 2550) },
  // France: restaurant food and non-alcoholic drinks 10 %, food sold for immediate consumption
  // 10 %, alcohol 20 %. Takeaway drinks: 10 % in open cups, 5.5 % in closed containers: null.
  FR: { food: rates(1000, 1000), drink: rates(1000, null), alcohol: rates(2000, 2000) },
  // Croatia: preparing and serving food in restaurants 13 %. Which drinks share the 13 % and the
  // rate of takeaway food are not certain here: null. Alcohol as goods 25 %.
  HR: { food: rates(1300, null), drink: rates(null, null), alcohol: rates(null, 2500) },
  // Hungary: restaurant service 5 % (food and non-alcoholic drinks prepared on the spot; bottled
  // drinks 27 %: null). Takeaway food is a supply of goods at 27 %, 18 % or 5 % by food: null.
  HU: { food: rates(500, null), drink: rates(null, null), alcohol: rates(2700, 2700) },
  // Ireland from 2026-07-01: food in catering and hot takeaway food 9 % (was 13.5 %); cold
  // takeaway food is 0 %: takeaway food counted as hot, as a cooked menu item is. Drinks: tea and
  // coffee at the reduced rate, soft drinks and bottled water 23 %: null. Alcohol 23 %.
  IE: { food: rates(900, 900), drink: rates(null, null), alcohol: rates(2300, 2300) },
  // Italy: food and drink served (somministrazione) 10 %, alcohol included; prepared food to take
  // away 10 %. Drinks as goods: mostly 22 % but not all: null. Alcohol as goods 22 %.
  IT: { food: rates(1000, 1000), drink: rates(1000, null), alcohol: rates(1000, 2200) },
  // Lithuania: the reduced 9 % for catering ended on 2023-12-31; food and restaurants 21 %.
  LT: flat(2100),
  // Luxembourg: restaurant services and food 3 %, non-alcoholic drinks 3 %; alcohol served 17 %.
  // Alcohol as goods: wine up to 13 % vol. 14 %, other alcohol 17 %: null.
  LU: { food: rates(300, 300), drink: rates(300, 300), alcohol: rates(1700, null) },
  // Latvia: 21 %, no reduced rate for restaurants or prepared food.
  LV: flat(2100),
  // Malta: restaurant services 18 %. Food as goods is zero-rated, but whether a restaurant's
  // takeaway meal is catering (18 %) or food (0 %) is not certain here: null.
  MT: { food: rates(1800, null), drink: rates(1800, null), alcohol: rates(1800, 1800) },
  // Netherlands: food and non-alcoholic drinks 9 %, served or to take away; alcohol 21 %.
  NL: { food: rates(900, 900), drink: rates(900, 900), alcohol: rates(2100, 2100) },
  // Poland: catering services 8 %, but coffee, tea, soft drinks and mineral water served 23 %;
  // alcohol 23 %. Takeaway meals and drinks are goods at 5 %, 8 % or 23 % by product: null.
  PL: { food: rates(800, null), drink: rates(2300, null), alcohol: rates(2300, 2300) },
  // Portugal (mainland): meals served and ready meals to take away 13 %; soft drinks and juices
  // 23 %, coffee and still water 13 %: null; alcohol 23 %.
  PT: { food: rates(1300, 1300), drink: rates(null, null), alcohol: rates(2300, 2300) },
  // Romania from 2025-08-01: restaurant services except alcohol 11 % (was 9 %), food 11 %;
  // standard 21 % (was 19 %). Drinks with added sugar are taxed at the standard rate: null.
  RO: { food: rates(1100, 1100), drink: rates(null, null), alcohol: rates(2100, 2100) },
  // Sweden: restaurant services 12 % (non-alcoholic drinks included), alcohol 25 %. Food and
  // non-alcoholic drinks as goods, so takeaway: 6 % from 2026-04-01 until 2027-12-31 (then 12 %).
  SE: { food: rates(1200, 600), drink: rates(1200, 600), alcohol: rates(2500, 2500) },
  // Slovenia: restaurant food and food 9.5 %, alcohol 22 %. Non-alcoholic drinks: not all 9.5 %.
  SI: { food: rates(950, 950), drink: rates(null, null), alcohol: rates(2200, 2200) },
  // Slovakia from 2025: food served 5 %, non-alcoholic drinks served 19 %, alcohol 23 %. Takeaway
  // food and drinks are goods at 5 %, 19 % or (high sugar or salt, from 2026) 23 %: null.
  SK: { food: rates(500, null), drink: rates(1900, null), alcohol: rates(2300, 2300) },
  // United Kingdom (HMRC Notice 709/1): restaurant meals and hot takeaway food 20 %; cold takeaway
  // food 0 %: takeaway food counted as hot, as a cooked menu item is. Soft drinks and hot drinks
  // 20 % either way; alcohol 20 %.
  GB: flat(2000),
  // Switzerland from 2024-01-01: restaurant services 8.1 %; food and non-alcoholic drinks to take
  // away 2.6 %; alcohol 8.1 % always.
  CH: { food: rates(810, 260), drink: rates(810, 260), alcohol: rates(810, 810) },
};

const unknown: Readonly<TaxRates> = Object.freeze(rates(null, null));

/** The VAT of a menu item of the tax class in the country (ISO 3166-1 alpha-2); null: unknown. */
export function vatRates(country: string | null, taxClass: TaxClass): TaxRates {
  const code = country?.toUpperCase();
  const found = code !== undefined && Object.hasOwn(table, code) ? table[code]?.[taxClass] : undefined;
  return { ...(found ?? unknown) };
}
