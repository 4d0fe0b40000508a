import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { InputError } from '../domain/shared/errors.ts';
import {
  advanceSandboxClock,
  maxSandboxOffsetSeconds,
  resetSandboxClock,
  sandboxClockRefreshMs,
} from '../domain/shared/sandbox-clock.ts';
import { inAdminTransaction } from './admin-transaction.ts';
import { onlyArgument, parseCommandLine, printResult } from './command-line.ts';

const units = { d: 86_400, h: 3600, m: 60, s: 1 } as const;

/** `61s`, `90m`, `1h30m`, `2d`: whole days, hours, minutes and seconds, in that order. */
function durationSeconds(command: string, text: string): number {
  const parts = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  const seconds = parts
    ? Object.values(units).reduce((sum, unit, i) => sum + Number(parts[i + 1] ?? 0) * unit, 0)
    : 0;
  if (seconds === 0)
    throw new InputError(`${command}: the duration must be like 61s, 90m, 1h30m or 2d, got "${text}"`);
  if (seconds > maxSandboxOffsetSeconds)
    throw new InputError(`${command}: at most 3650d at a time, got "${text}"`);
  return seconds;
}

/** 5461 → `1h31m1s`; 0 → `0s`. */
function durationText(seconds: number): string {
  let rest = seconds;
  const parts = Object.entries(units).flatMap(([name, unit]) => {
    const n = Math.floor(rest / unit);
    rest -= n * unit;
    return n > 0 ? [`${n}${name}`] : [];
  });
  return parts.join('') || '0s';
}

/**
 * `servery clock show|advance <duration>|reset`: the installation's sandbox clock, for trying
 * expiry, pause ends, rate-limit windows and webhook retries without waiting. Only with
 * SANDBOX_CLOCK on (never in production mode: the setting is refused there).
 */
export function clockCommand(verb: 'show' | 'advance' | 'reset'): (args: string[]) => Promise<void> {
  return async (args) => {
    const command = `clock ${verb}`;
    const { values, positionals } = parseCommandLine(command, () =>
      parseArgs({
        args,
        options: { json: { type: 'boolean', default: false } },
        strict: true,
        allowPositionals: verb === 'advance',
      }),
    );
    if (!loadConfig().sandboxClock)
      throw new InputError(
        `${command}: the sandbox clock is off (it is for development and tests): set SANDBOX_CLOCK=true for the service and for this command`,
      );
    const forward =
      verb === 'advance' ? durationSeconds(command, onlyArgument(command, 'duration', positionals)) : 0;
    const offsetSeconds = await inAdminTransaction(async (ctx) => {
      if (verb === 'advance') return advanceSandboxClock(ctx.db, forward);
      if (verb === 'reset') return resetSandboxClock(ctx.db);
      return (ctx.clock.offsetMs ?? 0) / 1000;
    });
    const now = new Date(Date.now() + offsetSeconds * 1000).toISOString();
    const reads = `the sandbox clock reads ${now}, ${durationText(offsetSeconds)} ahead of the system clock`;
    const followed = `services started with SANDBOX_CLOCK take it within ${sandboxClockRefreshMs / 1000} s`;
    printResult(
      values.json,
      { now, offset_seconds: offsetSeconds },
      verb === 'show' ? reads : `${reads}; ${followed}`,
    );
  };
}
