import Type from 'typebox';

/**
 * A point in time. Responses carry a Date, written as ISO 8601 UTC with `Z` and milliseconds;
 * requests must send a zone (`Z` or an offset), which the `date-time` format requires.
 */
export const Timestamp = Type.Unsafe<Date>({ type: 'string', format: 'date-time' });

/** A field that may be null. */
export const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
