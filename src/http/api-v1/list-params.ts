import Type from 'typebox';

/* Query parameters the lists' filters share (spec: List filters). */

/** A comma list of some of `values` (`status=pending,confirmed`). */
export const commaListParam = (values: readonly string[], example: string) =>
  Type.String({
    pattern: `^(${values.join('|')})(,(${values.join('|')}))*$`,
    description: `Comma list of ${values.join(', ')}.`,
    examples: [example],
  });

/** An instant with its zone (`updated_since`, `created_since`, …). */
export const instantParam = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-10-08T09:30:00.000Z'] });
