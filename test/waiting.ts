/*
 * Waiting in the tests: for the event, never for a time. A test waits for what it needs (a log
 * line, a process's exit, a row, a page element) however long the machine takes; the one bound
 * is a hang-catcher, so that a broken test fails instead of holding CI forever. Only a hang
 * reaches it: no test may count on anything happening within it.
 */

/** The bound on every wait in the tests (and on a test as a whole): 10 minutes. */
export const hangCatcherMs = 10 * 60_000;

/** How long polling waits between two looks: briefly at first, then less often. */
const firstPollMs = 10;
const longestPollMs = 250;

/** What counts as "not yet" from a check. */
type NotYet = undefined | null | false;

/** How `eventually` looks. */
export interface Polling {
  /** What the test knows (a process's output, say), for the error of a hang. */
  describe?: () => string;
  /** A steady pace instead: for a figure measured by the first look that succeeds. */
  everyMs?: number;
}

/**
 * Looks with `check` until it gives something (anything but undefined, null or false) and
 * resolves with that. A check that throws ends the wait with its error.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  { describe = () => '', everyMs }: Polling = {},
): Promise<Exclude<T, NotYet>> {
  const deadline = Date.now() + hangCatcherMs;
  for (let pause = everyMs ?? firstPollMs; ; pause = everyMs ?? Math.min(2 * pause, longestPollMs)) {
    const found = await check();
    if (found !== undefined && found !== null && found !== false) return found as Exclude<T, NotYet>;
    if (Date.now() > deadline)
      throw new Error(`${what}: still not so after ${hangCatcherMs / 60_000} minutes${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * `promise`, or an error once it has not settled within the hang-catcher (`describe` as for
 * `eventually`). The timer does not keep the process alive.
 */
export function settled<T>(what: string, promise: Promise<T>, describe: () => string = () => ''): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: still not so after ${hangCatcherMs / 60_000} minutes${describe()}`)),
      hangCatcherMs,
    );
    timer.unref();
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}
