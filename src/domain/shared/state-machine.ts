import { ApiError } from './errors.ts';

/** What each status may become in one move; a status that may become nothing is final. */
export type Transitions<S extends string> = { readonly [From in S]: readonly S[] };

/**
 * Allows the move `from` → `to` when the table has it; anything else is 409
 * `invalid_transition`, whose message lists the statuses possible now (spec: a disallowed change
 * names them), so a caller learns what it may do instead.
 */
export function assertTransition<S extends string>(
  table: Transitions<S>,
  what: string,
  from: S,
  to: S,
): void {
  const possible = table[from];
  if (possible.includes(to)) return;
  throw new ApiError(
    'invalid_transition',
    possible.length === 0
      ? `This ${what} is ${from}, a final status: it changes no more.`
      : `This ${what} is ${from}: it can become ${possible.join(', ')}, not ${to}.`,
  );
}
