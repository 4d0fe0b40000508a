import { parseArgs } from 'node:util';
import { actInRestaurant } from '../domain/restaurants/restaurant-gate.ts';
import { findRestaurant } from '../domain/restaurants/restaurants.service.ts';
import type { Ctx } from '../domain/shared/context.ts';
import { ApiError, InputError } from '../domain/shared/errors.ts';
import { createArea, deleteArea, listAreas, updateArea } from '../domain/store/areas.service.ts';
import type { DashboardArea, DashboardTable, TablePatch } from '../domain/store/table.schema.ts';
import {
  createTable,
  deleteTable,
  listTables,
  regenerateQrKey,
  updateTable,
} from '../domain/store/tables.service.ts';
import { inAdminTransaction } from './admin-transaction.ts';
import { parseCommandLine, printResult, required } from './command-line.ts';

/*
 * `servery table add|list|set|remove|qr-key` and `servery area add|list|set|remove`: a
 * restaurant's tables and areas, the restaurant named by its slug or id, through the same domain
 * code as the dashboard. The domain's refusals (a blank label, seats out of range, an unknown
 * area) are the operator's mistakes: exit 2, nothing changed.
 */

type Options = Record<string, { type: 'string' }>;

/** The command's `--json` flag, its text options and its positional arguments. */
function parse(command: string, args: string[], options: Options = {}) {
  const { values, positionals } = parseCommandLine(command, () =>
    parseArgs({
      args,
      options: { ...options, json: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: true,
    }),
  );
  const { json, ...texts } = values as Record<string, string | boolean>;
  return { json: json === true, values: texts as Record<string, string | undefined>, positionals };
}

/** The positional arguments: the restaurant, then the object's id where the command takes one. */
function positionalsOf(
  command: string,
  positionals: string[],
  objectId?: string,
): { restaurant: string; id: string } {
  const wanted = objectId === undefined ? 1 : 2;
  const [restaurant, id = '', ...extra] = positionals.map((value) => value.trim());
  if (restaurant === undefined || restaurant === '' || (objectId !== undefined && id === ''))
    throw new InputError(
      `${command}: give the restaurant's slug or id${objectId === undefined ? '' : ` and the ${objectId}`}`,
    );
  if (positionals.length > wanted)
    throw new InputError(`${command}: unexpected argument "${[id, ...extra][wanted - 1]}"`);
  return { restaurant, id };
}

/** Runs the work in the named restaurant, in one transaction. */
function inRestaurant<T>(command: string, idOrSlug: string, work: (ctx: Ctx) => Promise<T>): Promise<T> {
  return inAdminTransaction(async (ctx) => {
    const restaurant = await findRestaurant(ctx, idOrSlug);
    if (!restaurant) throw new InputError(`${command}: no restaurant ${idOrSlug}`);
    try {
      return await work(await actInRestaurant(ctx, restaurant.id, []));
    } catch (error) {
      if (error instanceof ApiError && error.status < 500)
        throw new InputError(`${command}: ${error.message}${error.param ? ` (${error.param})` : ''}`);
      throw error;
    }
  });
}

/** A whole number option (seats, min party), or null for the word that means none. */
function sizeOption(command: string, option: string, value: string, none: string): number | null {
  const text = value.trim();
  if (text === none) return null;
  if (!/^\d{1,3}$/.test(text))
    throw new InputError(`${command}: --${option} must be a whole number or "${none}", not "${value}"`);
  return Number(text);
}

function booleanOption(command: string, option: string, value: string): boolean {
  if (value !== 'true' && value !== 'false')
    throw new InputError(`${command}: --${option} must be true or false, not "${value}"`);
  return value === 'true';
}

function describeTable(table: DashboardTable): string {
  return [
    `${table.id} "${table.label}": ${table.seats} seats${table.seats_is_default ? ' (default)' : ''}`,
    table.area_id ? `area ${table.area_id}` : 'no area',
    ...(table.min_party === null ? [] : [`min party ${table.min_party}`]),
    ...(table.bookable_online ? [] : ['not bookable online']),
    `QR key ${table.qr_key}`,
  ].join(', ');
}

function describeArea(area: DashboardArea): string {
  return `${area.id} "${area.name}"${area.bookable_online ? '' : ', not bookable online'}`;
}

const tableOptions: Options = {
  label: { type: 'string' },
  seats: { type: 'string' },
  area: { type: 'string' },
  'min-party': { type: 'string' },
  'bookable-online': { type: 'string' },
};

/** The table fields the options give: `--seats default`, `--area none`, `--min-party none` clear. */
function tableFields(command: string, values: Record<string, string | undefined>): TablePatch {
  const { label, seats, area, 'min-party': minParty, 'bookable-online': bookable } = values;
  return {
    ...(label === undefined ? {} : { label }),
    ...(seats === undefined ? {} : { seats: sizeOption(command, 'seats', seats, 'default') }),
    ...(area === undefined ? {} : { area_id: area.trim() === 'none' ? null : area.trim() }),
    ...(minParty === undefined ? {} : { min_party: sizeOption(command, 'min-party', minParty, 'none') }),
    ...(bookable === undefined
      ? {}
      : { bookable_online: booleanOption(command, 'bookable-online', bookable) }),
  };
}

/** `servery table add|list|set|remove|qr-key …` */
export async function tableCommand(args: string[]): Promise<void> {
  const [verb, ...rest] = args;
  const command = `table ${verb}`;
  if (verb === 'add') {
    const { json, values, positionals } = parse(command, rest, tableOptions);
    const { restaurant } = positionalsOf(command, positionals);
    const label = required(command, 'label', values.label);
    const table = await inRestaurant(command, restaurant, (ctx) =>
      createTable(ctx, { ...tableFields(command, values), label }),
    );
    return printResult(json, { table }, `added table ${describeTable(table)}`);
  }
  if (verb === 'list') {
    const { json, positionals } = parse(command, rest);
    const { restaurant } = positionalsOf(command, positionals);
    const tables = await inRestaurant(command, restaurant, (ctx) => listTables(ctx, { after: null }));
    return printResult(
      json,
      { tables },
      tables.length === 0 ? 'no tables' : tables.map(describeTable).join('\n'),
    );
  }
  if (verb === 'set') {
    const { json, values, positionals } = parse(command, rest, tableOptions);
    const { restaurant, id: tableId } = positionalsOf(command, positionals, "table's id");
    const fields = tableFields(command, values);
    if (Object.keys(fields).length === 0)
      throw new InputError(
        `${command}: give at least one of --label, --seats, --area, --min-party, --bookable-online`,
      );
    const table = await inRestaurant(command, restaurant, (ctx) => updateTable(ctx, tableId, fields));
    return printResult(json, { table }, `changed table ${describeTable(table)}`);
  }
  if (verb === 'remove') {
    const { json, positionals } = parse(command, rest);
    const { restaurant, id: tableId } = positionalsOf(command, positionals, "table's id");
    await inRestaurant(command, restaurant, (ctx) => deleteTable(ctx, tableId));
    return printResult(json, { removed: tableId }, `removed table ${tableId}`);
  }
  if (verb === 'qr-key') {
    const { json, positionals } = parse(command, rest);
    const { restaurant, id: tableId } = positionalsOf(command, positionals, "table's id");
    const table = await inRestaurant(command, restaurant, (ctx) => regenerateQrKey(ctx, tableId));
    return printResult(
      json,
      { table },
      `new QR key for table ${table.id} "${table.label}": ${table.qr_key} (codes printed with the old key no longer work)`,
    );
  }
  throw new InputError('"table" needs one of: add, list, set, remove, qr-key');
}

const areaOptions: Options = { name: { type: 'string' }, 'bookable-online': { type: 'string' } };

/** `servery area add|list|set|remove …` */
export async function areaCommand(args: string[]): Promise<void> {
  const [verb, ...rest] = args;
  const command = `area ${verb}`;
  if (verb === 'add' || verb === 'set') {
    const { json, values, positionals } = parse(command, rest, areaOptions);
    const bookable =
      values['bookable-online'] === undefined
        ? {}
        : { bookable_online: booleanOption(command, 'bookable-online', values['bookable-online']) };
    if (verb === 'add') {
      const { restaurant } = positionalsOf(command, positionals);
      const name = required(command, 'name', values.name);
      const area = await inRestaurant(command, restaurant, (ctx) => createArea(ctx, { name, ...bookable }));
      return printResult(json, { area }, `added area ${describeArea(area)}`);
    }
    const { restaurant, id: areaId } = positionalsOf(command, positionals, "area's id");
    const patch = { ...(values.name === undefined ? {} : { name: values.name }), ...bookable };
    if (Object.keys(patch).length === 0)
      throw new InputError(`${command}: give at least one of --name, --bookable-online`);
    const area = await inRestaurant(command, restaurant, (ctx) => updateArea(ctx, areaId, patch));
    return printResult(json, { area }, `changed area ${describeArea(area)}`);
  }
  if (verb === 'list') {
    const { json, positionals } = parse(command, rest);
    const { restaurant } = positionalsOf(command, positionals);
    const areas = await inRestaurant(command, restaurant, (ctx) => listAreas(ctx, { after: null }));
    return printResult(json, { areas }, areas.length === 0 ? 'no areas' : areas.map(describeArea).join('\n'));
  }
  if (verb === 'remove') {
    const { json, positionals } = parse(command, rest);
    const { restaurant, id: areaId } = positionalsOf(command, positionals, "area's id");
    await inRestaurant(command, restaurant, (ctx) => deleteArea(ctx, areaId));
    return printResult(json, { removed: areaId }, `removed area ${areaId} (its tables have no area now)`);
  }
  throw new InputError('"area" needs one of: add, list, set, remove');
}
