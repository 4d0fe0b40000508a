import { ApiError } from '../shared/errors.ts';
import { characterCount, textProblem } from '../shared/text.ts';
import { allergenKeyOf } from './allergen-names.ts';
import { dietKeyOf } from './diet-names.ts';

/*
 * A product's `allergens` and `diets` as stored (spec: Product):
 * - each value trimmed; a blank one, or one with control characters, is refused;
 * - a common name of one of the list's keys (allergen-names.ts, diet-names.ts) becomes the key; any
 *   other text is the restaurant's own label, kept as sent (trimmed);
 * - the lists are never mixed: a diet name in `allergens` ("vegan") stays an own allergen label, an
 *   allergen name in `diets` ("milk") an own diet label, neither moving to the other list;
 * - a repeat (the same key, or an own label differing only in case) is dropped, the first kept;
 * - allergens: at most 34 values in the request, 20 own labels (after dropping repeats), 40
 *   characters each; diets: at most 20 values in the request (the 6 keys and 14 own labels, as 34 is
 *   14 and 20), 14 own labels, 60 characters each.
 * Every refusal is a 400 `invalid_request` whose `param` names the value (`allergens[3]`) or, for a
 * count, the list (`allergens`).
 */

interface LabelRules {
  /** The list's key for a name, or null. */
  keyOf(name: string): string | null;
  what: string;
  maxItems: number;
  maxOwn: number;
  maxOwnLength: number;
}

export const allergenLimits = { maxItems: 34, maxOwn: 20, maxOwnLength: 40 } as const;
export const dietLimits = { maxItems: 20, maxOwn: 14, maxOwnLength: 60 } as const;

const allergenRules: LabelRules = {
  keyOf: allergenKeyOf,
  what: 'allergen',
  ...allergenLimits,
};

const dietRules: LabelRules = {
  keyOf: dietKeyOf,
  what: 'diet',
  ...dietLimits,
};

/** The allergens to store: keys and own labels, each once, in the order sent. */
export function normalizeAllergens(values: readonly string[], param: string): string[] {
  return normalizeLabels(allergenRules, values, param);
}

/** The diets to store: keys and own labels, each once, in the order sent. */
export function normalizeDiets(values: readonly string[], param: string): string[] {
  return normalizeLabels(dietRules, values, param);
}

const controlCharacter = /\p{Cc}/u;

/** An own label's identity: case and Unicode composition do not make two labels. */
const ownLabelIdentity = (label: string) => label.normalize('NFC').toLowerCase();

function normalizeLabels(rules: LabelRules, values: readonly string[], param: string): string[] {
  const refuse = (message: string, at: string) => new ApiError('invalid_request', message, { param: at });
  if (values.length > rules.maxItems) throw refuse(`${param} holds at most ${rules.maxItems} values.`, param);

  const kept: string[] = [];
  const keysKept = new Set<string>();
  const ownKept = new Set<string>();
  let ownLabels = 0;
  for (const [index, value] of values.entries()) {
    const at = `${param}[${index}]`;
    const text = value.trim();
    if (text === '') throw refuse(`${at} must not be blank.`, at);
    const problem = textProblem(text);
    if (problem !== null) throw refuse(`${at} ${problem}.`, at);
    if (controlCharacter.test(text)) throw refuse(`${at} must not contain control characters.`, at);

    const key = rules.keyOf(text);
    if (key !== null) {
      if (!keysKept.has(key)) kept.push(key);
      keysKept.add(key);
      continue;
    }
    if (characterCount(text) > rules.maxOwnLength)
      throw refuse(
        `${at} is no known ${rules.what} name, so it is an own label, and an own label has at most ${rules.maxOwnLength} characters.`,
        at,
      );
    const identity = ownLabelIdentity(text);
    if (ownKept.has(identity)) continue;
    ownKept.add(identity);
    kept.push(text);
    ownLabels += 1;
  }
  if (ownLabels > rules.maxOwn)
    throw refuse(`${param} holds at most ${rules.maxOwn} own labels besides the ${rules.what} keys.`, param);
  return kept;
}
