import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { simulateGuests } from '../demo/guest-simulator.ts';
import { InputError } from '../domain/shared/errors.ts';
import { parseCommandLine, printResult } from './command-line.ts';

function positive(command: string, option: string, text: string, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new InputError(`${command}: --${option} must be a whole number from 1 to ${max}, got "${text}"`);
  return value;
}

/**
 * `servery demo guests [--slug <s>] [--orders <n>] [--every <seconds>] [--url <base>]`: guests order
 * at the running service's storefront (default: the demo restaurant on BASE_URL), one line per order.
 */
export async function demoGuestsCommand(args: string[]): Promise<void> {
  const command = 'demo guests';
  const { values } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: {
        slug: { type: 'string', default: 'trattoria-demo' },
        orders: { type: 'string', default: '10' },
        every: { type: 'string', default: '3' },
        url: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    }),
  );
  const config = loadConfig();
  const placed = await simulateGuests({
    baseUrl: values.url ?? config.baseUrl,
    slug: values.slug,
    orders: positive(command, 'orders', values.orders, 1000),
    everyMs: positive(command, 'every', values.every, 3600) * 1000,
    report: (line) => {
      if (!values.json) process.stdout.write(`${line}\n`);
    },
  });
  printResult(values.json, { placed }, `${placed} order(s) placed.`);
}
