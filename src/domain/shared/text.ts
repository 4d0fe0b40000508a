/*
 * The one rule for text in requests, on every surface (API, console, dashboard, OAuth, CLI):
 * - lengths count characters (Unicode code points), not UTF-16 units: an emoji is one;
 * - no NUL character (PostgreSQL text cannot hold it) and no lone surrogate (`"\ud800"` in JSON
 *   is no Unicode text and would be stored as U+FFFD);
 * - no explicit bidirectional control (embeddings and overrides U+202A–U+202E, isolates
 *   U+2066–U+2069): with them a name or note shows otherwise than it reads (an order note that
 *   seems to say another amount, a product whose name runs backwards), on the storefront, the
 *   board, the console and in apps alike. Refused at input, so no page has to isolate them.
 */

/** Unicode's explicit bidirectional controls (docs/api-decisions.md, Input). */
export const bidiControls = /[\u202A-\u202E\u2066-\u2069]/;

/** Length in characters (code points), as every limit of the spec counts. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Why `text` cannot be stored as sent, or null when it can. */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!text.isWellFormed()) return 'must be Unicode text (it holds a lone surrogate)';
  if (bidiControls.test(text))
    return 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)';
  return null;
}
