import { type Ctx, tenantOf } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { inPageOrder, type PageRange } from '../shared/paging.ts';
import { checkedText } from '../store/floor-input.ts';
import {
  type Deleted,
  maxGroupName,
  type Option,
  type OptionInput,
  type OptionPatch,
  optionFields,
} from './menu.schema.ts';
import {
  changedFields,
  checkExternalIdFree,
  externalIdChanged,
  externalIdWrite,
  knownId,
  lockMenu,
  nextPosition,
  orTaken,
  recordMenuEvent,
  updateOrder,
  viewerApp,
} from './menu-writes.ts';
import { groupsOf, type OptionRow, optionOf, optionsOf } from './option-group-rows.ts';
import { noOptionGroup } from './option-groups.service.ts';
import { soldOutState } from './sold-out-until.ts';

/*
 * Options (spec: Option), written as categories are (menu-writes.ts). An option belongs to one group
 * of the restaurant; its changes move neither the group's updated_at (the group's own fields only)
 * nor the products' (decisions: Menu).
 */

const noOption = (id: string) => new ApiError('not_found', `This restaurant has no option ${id}.`);

export interface OptionFilters {
  /** The caller's own external_id. */
  external_id?: string;
  /** Changed after this instant (exclusive). */
  updated_since?: Date;
}

/** The options matching `filters`, least recently changed first, after `page.after`. */
export async function listOptions(ctx: Ctx, filters: OptionFilters, page: PageRange): Promise<Option[]> {
  const viewer = await viewerApp(ctx);
  let query = optionsOf(ctx);
  if (filters.external_id !== undefined) {
    if (viewer === null) return [];
    query = query.where('external_id', '=', filters.external_id).where('external_id_app_id', '=', viewer);
  }
  if (filters.updated_since !== undefined) query = query.where('updated_at', '>', filters.updated_since);
  return (await inPageOrder(query, updateOrder, page).execute()).map((row) => optionOf(row, viewer));
}

export async function getOption(ctx: Ctx, id: string): Promise<Option> {
  const row = await optionsOf(ctx).where('id', '=', knownId(id, noOption)).executeTakeFirst();
  if (!row) throw noOption(id);
  return optionOf(row, await viewerApp(ctx));
}

/** The group exists in the restaurant; kept from deletion until the write commits. */
async function groupFound(ctx: Ctx, groupId: string): Promise<boolean> {
  const row = await groupsOf(ctx).where('id', '=', groupId).forKeyShare().executeTakeFirst();
  return row !== undefined;
}

/** A new option in the group (404 when the restaurant has no such group); without a position, last. */
export async function createOption(ctx: Ctx, groupId: string, input: OptionInput): Promise<Option> {
  await lockMenu(ctx);
  const tenantId = tenantOf(ctx);
  const viewer = await viewerApp(ctx);
  if (!(await groupFound(ctx, knownId(groupId, noOptionGroup)))) throw noOptionGroup(groupId);
  const name = checkedText(input.name, 'name', maxGroupName);
  const external = externalIdWrite(
    input.external_id,
    { external_id: null, external_id_app_id: null },
    viewer,
  );
  await checkExternalIdFree(ctx, 'menu_options', external, null);
  let position = input.position;
  if (position === undefined) {
    const { max } = await ctx.db
      .selectFrom('menu_options')
      .select((eb) => eb.fn.max('position').as('max'))
      .where('tenant_id', '=', tenantId)
      .where('group_id', '=', groupId)
      .executeTakeFirstOrThrow();
    position = nextPosition(max);
  }
  const now = ctx.clock.now();
  const row = await orTaken(
    ctx.db
      .insertInto('menu_options')
      .values({
        tenant_id: tenantId,
        id: newId(),
        ...external,
        group_id: groupId,
        name,
        price_delta: input.price_delta,
        ...soldOutState(
          { available: true, unavailable_until: null },
          { available: input.available, until: input.unavailable_until },
          now,
          'unavailable_until',
        ),
        position,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
    external.external_id,
  );
  const option = optionOf(row, viewer);
  await recordMenuEvent(ctx, 'menu.option.created', option);
  return option;
}

/**
 * Changes the sent fields (group_id moves it to another of the restaurant's groups, else 400 on
 * group_id). A write that changes nothing keeps updated_at and records nothing; otherwise
 * menu.option.updated with changed and previous.
 */
export async function updateOption(ctx: Ctx, id: string, patch: OptionPatch): Promise<Option> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const current = await optionsOf(ctx).where('id', '=', knownId(id, noOption)).forUpdate().executeTakeFirst();
  if (!current) throw noOption(id);
  if (patch.group_id !== undefined && patch.group_id !== current.group_id) {
    if (!(await groupFound(ctx, patch.group_id)))
      throw new ApiError('invalid_request', `This restaurant has no option group ${patch.group_id}.`, {
        param: 'group_id',
      });
  }
  const next: OptionRow = {
    ...current,
    ...externalIdWrite(patch.external_id, current, viewer),
    group_id: patch.group_id ?? current.group_id,
    name: patch.name === undefined ? current.name : checkedText(patch.name, 'name', maxGroupName),
    price_delta: patch.price_delta ?? current.price_delta,
    ...soldOutState(
      current,
      { available: patch.available, until: patch.unavailable_until },
      ctx.clock.now(),
      'unavailable_until',
    ),
    position: patch.position ?? current.position,
  };
  const before = optionOf(current, viewer);
  const changed: string[] = changedFields(
    optionFields.filter((field) => field !== 'external_id'),
    before,
    optionOf(next, viewer),
  );
  if (externalIdChanged(current, next)) changed.unshift('external_id');
  if (changed.length === 0) return before;
  if (externalIdChanged(current, next)) await checkExternalIdFree(ctx, 'menu_options', next, current.id);
  const row = await orTaken(
    ctx.db
      .updateTable('menu_options')
      .set({
        external_id: next.external_id,
        external_id_app_id: next.external_id_app_id,
        group_id: next.group_id,
        name: next.name,
        price_delta: next.price_delta,
        available: next.available,
        unavailable_until: next.unavailable_until,
        position: next.position,
        updated_at: ctx.clock.now(),
      })
      .where('tenant_id', '=', current.tenant_id)
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow(),
    next.external_id,
  );
  const option = optionOf(row, viewer);
  await recordMenuEvent(ctx, 'menu.option.updated', option, {
    changed,
    previous: Object.fromEntries(changed.map((field) => [field, before[field as keyof Option]])),
  });
  return option;
}

/** Deletes the option. Records menu.option.deleted with the option as it was. */
export async function deleteOption(ctx: Ctx, id: string): Promise<Deleted<'option'>> {
  await lockMenu(ctx);
  const viewer = await viewerApp(ctx);
  const current = await optionsOf(ctx).where('id', '=', knownId(id, noOption)).forUpdate().executeTakeFirst();
  if (!current) throw noOption(id);
  await ctx.db
    .deleteFrom('menu_options')
    .where('tenant_id', '=', current.tenant_id)
    .where('id', '=', current.id)
    .execute();
  await recordMenuEvent(ctx, 'menu.option.deleted', optionOf(current, viewer));
  return { object: 'option', id: current.id, deleted: true };
}
