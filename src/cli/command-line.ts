import { InputError } from '../domain/shared/errors.ts';

/** Reads a command's options with node:util parseArgs; its errors become one-line InputErrors. */
export function parseCommandLine<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (!code?.startsWith('ERR_PARSE_ARGS')) throw error;
    throw new InputError(`${command}: ${parseErrorMessage(message)}`);
  }
}

function parseErrorMessage(message: string): string {
  const option = /^(?:Unknown option|Option) '(-[^' ]*)/.exec(message)?.[1];
  if (message.startsWith('Unknown option')) return `unknown option ${option} (see "servery help")`;
  if (message.includes('argument missing')) return `${option} needs a value`;
  if (message.includes('does not take an argument')) return `${option} takes no value`;
  if (message.includes('argument is ambiguous'))
    return `${option} needs a value (write ${option}=<value> for a value starting with "-")`;
  const argument = /^Unexpected argument '([^']*)'/.exec(message)?.[1];
  if (argument !== undefined) return `unexpected argument "${argument}"`;
  return message.split('\n')[0] ?? message;
}

/** The value of a required option; missing or blank is the operator's mistake. */
export function required(command: string, option: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new InputError(`${command}: --${option} is required`);
  return value.trim();
}

/** The values of a required, repeatable option; each may also list several, separated by commas or spaces. */
export function requiredList(
  command: string,
  option: string,
  values: readonly string[] | undefined,
): string[] {
  const list = (values ?? []).flatMap((value) => value.split(/[\s,]+/)).filter((value) => value !== '');
  if (list.length === 0) throw new InputError(`${command}: --${option} is required`);
  return list;
}

/** The one positional argument a command takes (a slug, an id, a client id). */
export function onlyArgument(command: string, what: string, positionals: readonly string[]): string {
  const [argument, ...extra] = positionals;
  if (argument === undefined || argument.trim() === '') throw new InputError(`${command}: give the ${what}`);
  if (extra.length > 0) throw new InputError(`${command}: unexpected argument "${extra[0]}"`);
  return argument.trim();
}

/** An optional text option: absent or blank is null. */
export function optionalText(value: string | undefined): string | null {
  return value?.trim() || null;
}

/** A command's result on stdout: one JSON object with --json (for scripts), one readable line otherwise. */
export function printResult(json: boolean, result: object, line: string): void {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${line}\n`);
}
