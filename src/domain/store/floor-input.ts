import { ApiError } from '../shared/errors.ts';
import { characterCount } from '../shared/text.ts';
import { maxPartySize } from './table.schema.ts';

/*
 * Checks of the values a dashboard or CLI write sends for tables and areas. The dashboard's
 * schemas check the same first; the CLI reaches only these. Each refusal is a 400 naming the field.
 */

const controlCharacter = /\p{Cc}/u;

/** A label or name: trimmed, not blank, no control characters, at most `max` characters. */
export function checkedText(value: string, param: string, max: number): string {
  const text = value.trim();
  if (text === '') throw new ApiError('invalid_request', `${param} must not be blank.`, { param });
  if (controlCharacter.test(text))
    throw new ApiError('invalid_request', `${param} must not contain control characters.`, { param });
  if (characterCount(text) > max)
    throw new ApiError('invalid_request', `${param} has at most ${max} characters.`, { param });
  return text;
}

/** Seats or a minimum party size: null (none), or a whole number from 1 to 200. */
export function checkedPartySize(value: number | null, param: string): number | null {
  if (value !== null && !(Number.isInteger(value) && value >= 1 && value <= maxPartySize))
    throw new ApiError(
      'invalid_request',
      `${param} must be a whole number from 1 to ${maxPartySize}, or null.`,
      {
        param,
      },
    );
  return value;
}
