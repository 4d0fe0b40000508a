import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

/*
 * fast-check arbitraries from the JSON Schemas of our routes (TypeBox schemas are plain JSON
 * Schema), for the contract fuzz test (test/api-v1/contract-fuzz.test.ts). No npm library does
 * this in a kept state (json-schema-fast-check: one 0.0.x release, built on fast-check 1 and faker 4).
 * - `arbitraryOf(schema)`: values the schema accepts, leaning to the edges (strings of the longest
 *   length in 4-byte emoji, any Unicode text, real calendar dates and instants near `now`).
 * - `sitesOf(schema, value)`: every place in a value that a mutation can hit, with its schema.
 * - `badValuesFor(schema)`: values to put at a site that must be refused there.
 * Only the keywords our schemas use are known; a schema with another keyword that changes what is
 * valid ($ref, oneOf, allOf, not, multipleOf, …) throws, so a new route that needs it is noticed.
 */

export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  minProperties?: number;
  additionalProperties?: boolean;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: readonly JsonSchema[];
  const?: unknown;
  enum?: readonly unknown[];
  default?: unknown;
}

const unsupported = [
  '$ref',
  'oneOf',
  'allOf',
  'not',
  'if',
  'multipleOf',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'uniqueItems',
  'prefixItems',
  'contains',
  'patternProperties',
  'propertyNames',
  'dependentRequired',
  'maxProperties',
];

function checkKnown(schema: JsonSchema): void {
  const found = unsupported.find((keyword) => keyword in schema);
  if (found) throw new Error(`json-schema-arbitrary: keyword ${found} is not supported yet`);
  if (typeof schema.additionalProperties === 'object')
    throw new Error('json-schema-arbitrary: additionalProperties as a schema is not supported yet');
}

const ajv = new Ajv({ strict: false });
addFormats.default(ajv);
const validators = new WeakMap<JsonSchema, (value: unknown) => boolean>();

/** Whether the schema alone accepts `value` (ajv with the standard formats). */
export function accepts(schema: JsonSchema, value: unknown): boolean {
  let validate = validators.get(schema);
  if (!validate) {
    const compiled = ajv.compile(schema);
    validate = (value) => compiled(value) === true;
    validators.set(schema, validate);
  }
  return validate(value);
}

export interface Options {
  /** Instants and dates are drawn around this moment (the test's clock). */
  now: Date;
}

const day = 24 * 3600 * 1000;
const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** Real calendar days from a month before `now` to a year after. */
const calendarDate = ({ now }: Options) =>
  fc
    .date({
      min: new Date(now.getTime() - 30 * day),
      max: new Date(now.getTime() + 400 * day),
      noInvalidDate: true,
    })
    .map(isoDate);

/** Instants from a day before `now` to two months after, in `Z` or with an offset. */
function instant({ now }: Options): fc.Arbitrary<string> {
  const offsets = fc.constantFrom(0, 0, 60, 120, 330, -300, -720, 840);
  const moments = fc.date({
    min: new Date(now.getTime() - day),
    max: new Date(now.getTime() + 60 * day),
    noInvalidDate: true,
  });
  return fc.tuple(moments, offsets, fc.boolean()).map(([moment, offset, millis]) => {
    const local = new Date(moment.getTime() + offset * 60_000).toISOString();
    const text = millis ? local.slice(0, 23) : local.slice(0, 19);
    if (offset === 0) return `${text}Z`;
    const size = Math.abs(offset);
    const hhmm = `${String(Math.floor(size / 60)).padStart(2, '0')}:${String(size % 60).padStart(2, '0')}`;
    return `${text}${offset < 0 ? '-' : '+'}${hhmm}`;
  });
}

/** One character of text: mostly printable ASCII, also any code point (but NUL) and 4-byte emoji. */
const textCharacter = fc
  .oneof(
    { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 6 },
    { arbitrary: fc.integer({ min: 1, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff), weight: 2 },
    { arbitrary: fc.integer({ min: 0x1f300, max: 0x1f64f }), weight: 1 },
  )
  .map((codePoint) => String.fromCodePoint(codePoint));

function stringOf(schema: JsonSchema, options: Options): fc.Arbitrary<string> {
  if (schema.format === 'date-time') return instant(options);
  if (schema.format === 'date') return calendarDate(options);
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'email')
    return fc
      .emailAddress()
      .filter((text) => text.length <= (schema.maxLength ?? Infinity) && accepts(schema, text));
  if (schema.format !== undefined)
    throw new Error(`json-schema-arbitrary: format ${schema.format} is not supported yet`);
  const minLength = schema.minLength ?? 0;
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern);
    const matching = fc
      .stringMatching(pattern)
      .filter((text) => [...text].length >= minLength && [...text].length <= (schema.maxLength ?? Infinity));
    // Dates and ids that mean something, where the pattern and length allow them, beside the pattern's noise.
    const meaningful = [calendarDate(options), fc.uuid()].filter((arbitrary) =>
      fc
        .sample(arbitrary, { numRuns: 5, seed: 1 })
        .every((sample) => pattern.test(sample) && sample.length <= (schema.maxLength ?? Infinity)),
    );
    return meaningful.length === 0 ? matching : fc.oneof(matching, ...meaningful, ...meaningful);
  }
  const maxLength = schema.maxLength ?? 24;
  const short = fc.string({
    unit: textCharacter,
    minLength,
    maxLength: Math.max(minLength, Math.min(maxLength, 24)),
  });
  if (schema.maxLength === undefined || maxLength > 5000) return short;
  // The longest allowed text in characters that take two UTF-16 units (lengths count characters).
  return fc.oneof(
    { arbitrary: short, weight: 4 },
    { arbitrary: fc.constant('😀'.repeat(maxLength)), weight: 1 },
  );
}

function numberOf(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1_000_000;
  const max = schema.maximum ?? 1_000_000;
  if (schema.type === 'integer') return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
  return fc.oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max));
}

const absent = Symbol('absent');

/** Values the schema accepts. `overrides` replace the arbitraries of top-level properties. */
export function arbitraryOf(
  schema: JsonSchema,
  options: Options,
  overrides: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<unknown> {
  checkKnown(schema);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  if (schema.anyOf !== undefined)
    return fc.oneof(...schema.anyOf.map((branch) => arbitraryOf(branch, options)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return numberOf(schema);
    case 'string':
      return stringOf(schema, options);
    case 'array': {
      const item = arbitraryOf(schema.items ?? {}, options);
      const minLength = schema.minItems ?? 0;
      return fc.array(item, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 4, 4)) });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      const requiredKeys = (schema.required ?? []).filter((name) => properties[name]?.default === undefined);
      // An optional property is left out half of the time (fc.record's own rate is far lower).
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) {
        const value = overrides[name] ?? arbitraryOf(property, options);
        record[name] = requiredKeys.includes(name) ? value : fc.option(value, { nil: absent, freq: 2 });
      }
      return fc
        .record(record)
        .map((object) => Object.fromEntries(Object.entries(object).filter(([, value]) => value !== absent)))
        .filter((object) => Object.keys(object).length >= (schema.minProperties ?? 0));
    }
    default:
      throw new Error(`json-schema-arbitrary: a schema without a known type: ${JSON.stringify(schema)}`);
  }
}

/** A path into a value: property names and array indexes. */
export type Path = readonly (string | number)[];

/** The `param` an error names for a path (`products[3].price`), as the API writes it. */
export function paramOf(path: Path): string {
  let param = '';
  for (const part of path) param += typeof part === 'number' ? `[${part}]` : param ? `.${part}` : part;
  return param;
}

export interface Site {
  path: Path;
  schema: JsonSchema;
  /** Whether the value has something there (an absent optional property is a site too). */
  present: boolean;
}

/** The branch of an `anyOf` that accepts the value, or the schema itself. */
function branchOf(schema: JsonSchema, value: unknown): JsonSchema {
  return schema.anyOf?.find((branch) => accepts(branch, value)) ?? schema;
}

/** Every site of `value` (which the schema accepts): its own, its properties', its items'. */
export function sitesOf(schema: JsonSchema, value: unknown, path: Path = []): Site[] {
  const sites: Site[] = [{ path, schema, present: true }];
  const own = branchOf(schema, value);
  if (own.type === 'object' && typeof value === 'object' && value !== null) {
    for (const [name, property] of Object.entries(own.properties ?? {})) {
      const inner = (value as Record<string, unknown>)[name];
      if (inner === undefined) sites.push({ path: [...path, name], schema: property, present: false });
      else sites.push(...sitesOf(property, inner, [...path, name]));
    }
  }
  if (own.type === 'array' && Array.isArray(value)) {
    value.forEach((item, index) => {
      sites.push(...sitesOf(own.items ?? {}, item, [...path, index]));
    });
  }
  return sites;
}

export interface BadValue {
  value: unknown;
  what: string;
  /**
   * `schema`: the schema refuses it, so the answer is 400 naming exactly this site.
   * `content`: the schema's pattern or format lets it pass but it is no valid input (NUL, a lone
   * surrogate, an impossible date, a leap second): 400, naming it unless another field is refused first.
   * `either`: unusual but arguably valid (lowercase `t`): accepted (answered as the unmutated
   * request), or 400 naming a field.
   */
  refusal: 'schema' | 'content' | 'either';
}

const wrongTypes: BadValue[] = [
  { value: 7, what: 'a number', refusal: 'schema' },
  { value: 1.5, what: 'a fraction', refusal: 'schema' },
  { value: '7', what: 'a numeric string', refusal: 'schema' },
  { value: 'true', what: 'the string "true"', refusal: 'schema' },
  { value: true, what: 'a boolean', refusal: 'schema' },
  { value: null, what: 'null', refusal: 'schema' },
  { value: {}, what: 'an object', refusal: 'schema' },
  { value: [], what: 'an array', refusal: 'schema' },
];

/** Text the service cannot take whatever the schema says: NUL and lone surrogates. */
export const badText: BadValue[] = [
  { value: 'a\u0000b', what: 'a NUL character', refusal: 'content' },
  { value: '\ud800', what: 'a lone high surrogate', refusal: 'content' },
  { value: 'a\udc00b', what: 'a lone low surrogate', refusal: 'content' },
];

const badTimestamps: BadValue[] = [
  { value: '2030-06-30T12:00:00', what: 'a timestamp without zone', refusal: 'schema' },
  { value: '2030-06-30T23:59:60Z', what: 'a leap second', refusal: 'content' },
  { value: '2030-06-30T24:00:00Z', what: 'hour 24', refusal: 'schema' },
  { value: '9999-99-99T00:00:00Z', what: 'a malformed date', refusal: 'schema' },
  { value: '2030-02-30T12:00:00Z', what: 'February 30', refusal: 'schema' },
  { value: '2030-06-30T12:00:00+24:00', what: 'an offset of 24 hours', refusal: 'schema' },
  { value: '2030-06-30T12:00Z', what: 'a time without seconds', refusal: 'schema' },
  { value: '2030-06-30', what: 'a date alone', refusal: 'schema' },
  { value: '2030-06-30t12:00:00z', what: 'lowercase t and z', refusal: 'either' },
  { value: '2030-06-30 12:00:00Z', what: 'a space for T', refusal: 'either' },
  { value: '2030-06-30\n12:00:00Z', what: 'a line break for T', refusal: 'either' },
  { value: '2030-06-30T12:00:00.1234567891Z', what: 'ten fraction digits', refusal: 'either' },
  { value: '2030-06-30T12:00:00-00:00', what: 'offset -00:00', refusal: 'either' },
];

const badDates: BadValue[] = [
  { value: '9999-99-99', what: 'a malformed date', refusal: 'content' },
  { value: '2027-02-29', what: 'February 29 of a common year', refusal: 'content' },
  { value: '2027-00-10', what: 'month 0', refusal: 'content' },
];

function hasType(schema: JsonSchema, value: unknown): boolean {
  if (schema.type === undefined) return true;
  if (schema.type === 'integer') return Number.isInteger(value);
  if (schema.type === 'array') return Array.isArray(value);
  if (schema.type === 'null') return value === null;
  if (schema.type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === schema.type;
}

/** Values that must be refused at a site with this schema. `validItem` makes too long arrays. */
export function badValuesFor(schema: JsonSchema, validItem?: unknown): BadValue[] {
  const own = schema.anyOf?.filter((branch) => branch.type !== 'null') ?? [schema];
  // Values of another JSON type than every branch (an empty object is no wrong type for an object).
  const candidates = wrongTypes.filter((bad) => !own.some((branch) => hasType(branch, bad.value)));
  for (const branch of own) {
    if (branch.const !== undefined || branch.enum !== undefined)
      candidates.push({ value: 'zz_not_one_of_them', what: 'a value not allowed', refusal: 'schema' });
    if (branch.type === 'integer' || branch.type === 'number') {
      if (branch.minimum !== undefined)
        candidates.push({ value: branch.minimum - 1, what: 'below the minimum', refusal: 'schema' });
      if (branch.maximum !== undefined) {
        candidates.push({ value: branch.maximum + 1, what: 'above the maximum', refusal: 'schema' });
        candidates.push({ value: 1e300, what: '1e300', refusal: 'schema' });
      }
    }
    if (branch.type === 'string') {
      candidates.push(...badText);
      if (branch.maxLength !== undefined) {
        candidates.push({
          value: 'a'.repeat(branch.maxLength + 1),
          what: 'one character too long',
          refusal: 'schema',
        });
        candidates.push({
          value: '😀'.repeat(branch.maxLength + 1),
          what: 'one emoji too long',
          refusal: 'schema',
        });
      }
      if (branch.minLength !== undefined && branch.minLength > 0)
        candidates.push({
          value: 'a'.repeat(branch.minLength - 1),
          what: 'one character too short',
          refusal: 'schema',
        });
      if (branch.pattern !== undefined || branch.format !== undefined) {
        candidates.push({ value: 'x', what: 'text of another form', refusal: 'schema' });
        candidates.push({ value: '😀', what: 'an emoji', refusal: 'schema' });
        candidates.push({ value: '', what: 'empty text', refusal: 'schema' });
      }
      if (branch.format === 'date-time') candidates.push(...badTimestamps);
      if (
        branch.format === 'date' ||
        (branch.pattern !== undefined && new RegExp(branch.pattern).test('2026-11-02'))
      )
        candidates.push(...badDates);
    }
    if (branch.type === 'array') {
      if (branch.maxItems !== undefined && validItem !== undefined)
        candidates.push({
          value: Array.from({ length: branch.maxItems + 1 }, () => validItem),
          what: 'one item too many',
          refusal: 'schema',
        });
      if (branch.minItems !== undefined && branch.minItems > 0)
        candidates.push({ value: [], what: 'too few items', refusal: 'schema' });
    }
  }
  // A wrong type the schema happens to accept (null where nullable) is no bad value.
  return candidates.filter((bad) => bad.refusal !== 'schema' || !accepts(schema, bad.value));
}

/** `root` with `value` at `path` (a deep copy; `undefined` removes the property). */
export function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let parent = copy;
  for (const part of path.slice(0, -1)) parent = parent[part] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}
