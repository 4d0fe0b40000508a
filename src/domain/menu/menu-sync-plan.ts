import type { Selectable } from 'kysely';
import type {
  MenuCategoriesTable,
  MenuOptionGroupsTable,
  MenuOptionsTable,
  MenuProductOptionGroupsTable,
  MenuProductsTable,
} from '../../db/schema.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { checkedText } from '../store/floor-input.ts';
import { normalizeAllergens, normalizeDiets } from './label-rules.ts';
import {
  categoryFields as categoryFieldsOfResource,
  maxCategoryName,
  maxGroupName,
  maxProductName,
  optionFields as optionFieldsOfResource,
  optionGroupFields,
  productFields as productFieldsOfResource,
} from './menu.schema.ts';
import { checkedImageUrl } from './menu-images.ts';
import type {
  MenuSyncInput,
  SyncCounts,
  SyncKind,
  SyncOptionGroupInput,
  SyncOptionInput,
  SyncProductInput,
  SyncWarning,
} from './menu-sync.schema.ts';
import { checkExternalIdText } from './menu-writes.ts';

/**
 * A row as the sync reads it (without tenant and timestamps; `unavailable_until` as text) and
 * writes it: a new one with both timestamps, a changed one with its new `updated_at`.
 */
type SyncRow<T> = {
  [K in Exclude<keyof T, 'tenant_id' | 'created_at' | 'updated_at'>]: T[K] extends Date | null
    ? string | null
    : T[K];
} & { created_at?: Date; updated_at?: Date };
export type CategoryRow = SyncRow<Selectable<MenuCategoriesTable>>;
export type ProductRow = SyncRow<Selectable<MenuProductsTable>>;
export type GroupRow = SyncRow<Selectable<MenuOptionGroupsTable>>;
export type OptionRow = SyncRow<Selectable<MenuOptionsTable>>;
export type LinkRow = Omit<Selectable<MenuProductOptionGroupsTable>, 'tenant_id'>;

/** The restaurant's whole menu as stored. */
export interface MenuRows {
  categories: CategoryRow[];
  products: ProductRow[];
  groups: GroupRow[];
  options: OptionRow[];
  links: LinkRow[];
}

/** What a sync writes to one kind's table: rows to insert, rows to update (whole), ids to delete. */
export interface TableWrites<R> {
  create: R[];
  update: R[];
  remove: R[];
}

export interface SyncPlan {
  categories: TableWrites<CategoryRow>;
  products: TableWrites<ProductRow>;
  groups: TableWrites<GroupRow>;
  options: TableWrites<OptionRow>;
  /** Products whose shared-group links are rewritten, and their links after the sync. */
  links: { products: string[]; rows: LinkRow[] };
  counts: Record<SyncKind, SyncCounts>;
  ids: Record<SyncKind, Record<string, string>>;
  warnings: SyncWarning[];
  changed: boolean;
}

/*
 * The plan of a whole-menu sync (spec: PUT /menu; decisions.md: Menu), worked out in memory from
 * the stored menu, so that a sync of thousands of objects is a few bulk statements:
 * - every object of the body is keyed by the caller's external_id: found → updated where a sent
 *   field differs (omitted fields stay, null clears), else created, going last in its scope
 *   (categories; products of its category; groups of its product or the shared ones; options of
 *   its group) when it has no position;
 * - a new object needs what it cannot do without (a product its name and price, a group its name,
 *   an option its name and price_delta; a category's name the schema requires of every one): 400
 *   on the field left out;
 * - references (`category_external_id`, `product_external_id`, `option_group_external_ids[]`) name
 *   the caller's objects of the body, or in merge mode also the caller's stored ones; anything else
 *   is a 400 on that param;
 * - external_ids are the caller's: another app's object with the same value is not the caller's
 *   object, so the caller's sync creates its own and never updates or deletes the other one;
 * - replace deletes the caller's objects of each kind sent that the body leaves out (options: in
 *   the groups sent with `options`, and in no group sent), with what goes with them: the
 *   restaurant's products of a deleted category move to no category, a deleted group's options
 *   and a deleted product's own groups go too (warnings name the ones that were not the caller's);
 * - a product's updated_at moves with its option groups (the groups it uses change their own
 *   fields, or its list of groups changes), as with single-object writes;
 * - nothing that is equal is written: a sync that changes nothing plans nothing.
 * Every refusal is thrown before anything is written.
 */
export function planSync(
  input: MenuSyncInput,
  stored: MenuRows,
  viewer: string,
  now: Date,
): Promise<SyncPlan> {
  return new SyncPlanner(input, stored, viewer, now).plan();
}

/*
 * Planning thousands of objects is CPU work on the one event loop that serves every request: it
 * steps aside between its stages and every `objectsPerStep` objects, so that a sync delays the
 * requests around it by a step, not by the whole plan.
 */
const objectsPerStep = 500;
const stepAside = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Keyed {
  id: string;
  external_id: string | null;
  external_id_app_id: string | null;
}

/** One kind's objects: stored (by id), the caller's (by external_id), and what the body makes of them. */
class KindState<R extends Keyed> {
  readonly byId: Map<string, R>;
  readonly mine = new Map<string, R>();
  /** The objects after the sync, by id (stored ones replaced by their next shape). */
  readonly final: Map<string, R>;
  /** The body's objects: external_id → id, and their index in the body. */
  readonly ids = new Map<string, string>();
  readonly bodyIndex = new Map<string, number>();
  readonly created = new Set<string>();
  readonly updated = new Set<string>();
  readonly unchanged = new Set<string>();
  readonly removed = new Set<string>();
  /** New body objects without a position: they go last in their scope, in the body's order. */
  readonly unplaced: string[] = [];

  private readonly kind: string;
  private readonly now: Date;

  constructor(rows: readonly R[], viewer: string, kind: string, now: Date) {
    this.kind = kind;
    this.now = now;
    this.byId = new Map(rows.map((row) => [row.id, row]));
    this.final = new Map(this.byId);
    for (const row of rows)
      if (row.external_id !== null && row.external_id_app_id === viewer) this.mine.set(row.external_id, row);
  }

  /**
   * The caller's stored object the body's external_id (at `param`) names: the rules of an
   * external_id, each once per kind.
   */
  key(value: string, param: string): R | undefined {
    checkExternalIdText(value, param);
    if (this.ids.has(value))
      throw new ApiError('invalid_request', `${param} repeats "${value}" among the ${this.kind}.`, { param });
    return this.mine.get(value);
  }

  /** Records a body object's next shape: created, updated (a field differs) or unchanged. */
  put(index: number, stored: R | undefined, next: R, fields: readonly (keyof R)[], placed: boolean): void {
    const externalId = next.external_id as string;
    this.ids.set(externalId, next.id);
    this.bodyIndex.set(next.id, index);
    this.final.set(next.id, next);
    if (stored === undefined) {
      this.created.add(next.id);
      if (!placed) this.unplaced.push(next.id);
    } else if (fields.some((field) => !sameValue(stored[field], next[field]))) {
      this.final.set(next.id, { ...next, updated_at: this.now });
      this.updated.add(next.id);
    } else {
      this.unchanged.add(next.id);
    }
  }

  /** A stored object changed as a consequence (moved out of a deleted category; its groups changed). */
  touch(next: R): void {
    this.final.set(next.id, next);
    if (this.created.has(next.id)) return;
    this.unchanged.delete(next.id);
    this.updated.add(next.id);
  }

  remove(id: string): void {
    this.removed.add(id);
    this.final.delete(id);
    this.updated.delete(id);
  }

  /** The caller's object named by `externalId` as it is after the sync (none when deleted). */
  mineAfter(externalId: string): R | undefined {
    const id = this.ids.get(externalId) ?? this.mine.get(externalId)?.id;
    return id === undefined ? undefined : this.final.get(id);
  }

  /** Replace mode: the caller's stored objects the body leaves out go. */
  removeMissingMine(keep: (row: R) => boolean = () => false): void {
    for (const row of this.mine.values())
      if (!this.ids.has(row.external_id as string) && !keep(row)) this.remove(row.id);
  }

  writes(): TableWrites<R> {
    const pick = (ids: Set<string>, from: Map<string, R>) => [...ids].map((id) => from.get(id) as R);
    return {
      create: pick(this.created, this.final),
      update: pick(this.updated, this.final),
      remove: pick(this.removed, this.byId),
    };
  }

  counts(): SyncCounts {
    return {
      created: this.created.size,
      updated: this.updated.size,
      deleted: this.removed.size,
      unchanged: this.unchanged.size,
    };
  }
}

/** The fields a sync compares: the resource's writable ones, external_id being the key. */
const stored = <F extends string>(fields: readonly F[]) =>
  fields.filter((field): field is Exclude<F, 'external_id'> => field !== 'external_id');
const categoryFields = stored(categoryFieldsOfResource);
const productFields = stored(productFieldsOfResource);
const groupFields = stored(optionGroupFields);
const optionFields = stored(optionFieldsOfResource);

/** The position of a new object sent without one, until placeLast gives it its place. */
const unplaced = -1;

class SyncPlanner {
  private readonly categories: KindState<CategoryRow>;
  private readonly products: KindState<ProductRow>;
  private readonly groups: KindState<GroupRow>;
  private readonly options: KindState<OptionRow>;
  /** The groups a product named (option_group_external_ids), by product id. */
  private readonly requestedLinks = new Map<string, string[]>();
  private readonly replace: boolean;

  private readonly input: MenuSyncInput;
  private readonly stored: MenuRows;
  private readonly viewer: string;
  private readonly now: Date;

  constructor(input: MenuSyncInput, stored: MenuRows, viewer: string, now: Date) {
    this.input = input;
    this.stored = stored;
    this.viewer = viewer;
    this.now = now;
    this.replace = input.mode === 'replace';
    this.categories = new KindState(stored.categories, viewer, 'categories', now);
    this.products = new KindState(stored.products, viewer, 'products', now);
    this.groups = new KindState(stored.groups, viewer, 'option groups', now);
    this.options = new KindState(stored.options, viewer, 'options', now);
  }

  async plan(): Promise<SyncPlan> {
    this.planCategories();
    await this.planProducts();
    await this.planGroups();
    this.removeWithRemovedOwners();
    this.moveOutOfRemovedCategories();
    placeLast(this.categories, () => '');
    placeLast(this.products, (row) => row.category_id ?? '');
    placeLast(this.groups, (row) => row.product_id ?? '');
    placeLast(this.options, (row) => row.group_id);
    await stepAside();
    const links = this.planLinks();
    const kinds = {
      categories: this.categories,
      products: this.products,
      option_groups: this.groups,
      options: this.options,
    };
    const counts = mapValues(kinds, (state) => state.counts());
    return {
      categories: this.categories.writes(),
      products: this.products.writes(),
      groups: this.groups.writes(),
      options: this.options.writes(),
      links,
      counts,
      ids: mapValues(kinds, (state) => Object.fromEntries(state.ids)),
      warnings: this.warnings(),
      changed: Object.values(counts).some((count) => count.created + count.updated + count.deleted > 0),
    };
  }

  private newRow(externalId: string) {
    return {
      id: newId(),
      external_id: externalId,
      external_id_app_id: this.viewer,
      created_at: this.now,
      updated_at: this.now,
    };
  }

  /** A reference to one of the caller's objects as it is after the sync, else 400 on `param`. */
  private reference<R extends Keyed>(
    state: KindState<R>,
    externalId: string,
    param: string,
    what: string,
  ): R {
    const found = state.mineAfter(externalId);
    if (found === undefined)
      throw new ApiError(
        'invalid_request',
        `${param}: you have no ${what} "${externalId}"${this.replace ? ' in this body' : ''}.`,
        { param },
      );
    return found;
  }

  private planCategories(): void {
    const state = this.categories;
    if (this.input.categories === undefined) return;
    for (const [index, sent] of this.input.categories.entries()) {
      const param = `categories[${index}]`;
      const stored = state.key(sent.external_id, `${param}.external_id`);
      const next: CategoryRow = {
        ...(stored ?? this.newRow(sent.external_id)),
        name: checkedText(sent.name, `${param}.name`, maxCategoryName),
        position: sent.position ?? stored?.position ?? unplaced,
        tax_class: sent.tax_class === undefined ? (stored?.tax_class ?? null) : sent.tax_class,
      };
      state.put(index, stored, next, categoryFields, sent.position !== undefined);
    }
    if (this.replace) state.removeMissingMine();
  }

  private async planProducts(): Promise<void> {
    const state = this.products;
    if (this.input.products === undefined) return;
    for (const [index, sent] of this.input.products.entries()) {
      if (index % objectsPerStep === 0) await stepAside();
      const param = `products[${index}]`;
      const stored = state.key(sent.external_id, `${param}.external_id`);
      const next: ProductRow = {
        ...(stored ?? { ...this.newRow(sent.external_id), unavailable_until: null }),
        ...this.productFields(sent, stored, param),
      };
      state.put(index, stored, next, productFields, sent.position !== undefined);
      if (sent.option_group_external_ids !== undefined)
        this.requestedLinks.set(next.id, sent.option_group_external_ids);
    }
    if (this.replace) state.removeMissingMine();
  }

  private productFields(sent: SyncProductInput, stored: ProductRow | undefined, param: string) {
    const category = sent.category_external_id;
    const available = sent.available ?? stored?.available ?? true;
    return {
      category_id:
        category === undefined
          ? (stored?.category_id ?? null)
          : category === null
            ? null
            : this.reference(this.categories, category, `${param}.category_external_id`, 'category').id,
      name:
        sent.name === undefined
          ? storedOrNeeded(stored, 'name', param, 'product')
          : checkedText(sent.name, `${param}.name`, maxProductName),
      description: sent.description === undefined ? (stored?.description ?? null) : sent.description,
      price: sent.price ?? storedOrNeeded(stored, 'price', param, 'product'),
      available,
      // Sold out until a time stays so while the product stays sold out; available again clears it.
      unavailable_until: available ? null : (stored?.unavailable_until ?? null),
      position: sent.position ?? stored?.position ?? unplaced,
      allergens:
        sent.allergens === undefined
          ? (stored?.allergens ?? [])
          : normalizeAllergens(sent.allergens, `${param}.allergens`),
      diets: sent.diets === undefined ? (stored?.diets ?? []) : normalizeDiets(sent.diets, `${param}.diets`),
      image_url:
        sent.image_url === undefined
          ? (stored?.image_url ?? null)
          : checkedImageUrl(sent.image_url, `${param}.image_url`),
      tax_class: sent.tax_class === undefined ? (stored?.tax_class ?? null) : sent.tax_class,
    };
  }

  private async planGroups(): Promise<void> {
    const groups = this.groups;
    if (this.input.option_groups === undefined) return;
    /** Groups sent without `options`: their options stay as they are, also in replace mode. */
    const keepOptionsOf = new Set<string>();
    let planned = 0;
    for (const [index, sent] of this.input.option_groups.entries()) {
      planned += 1 + (sent.options?.length ?? 0);
      if (planned >= objectsPerStep) {
        planned = 0;
        await stepAside();
      }
      const param = `option_groups[${index}]`;
      const stored = groups.key(sent.external_id, `${param}.external_id`);
      const next: GroupRow = {
        ...(stored ?? this.newRow(sent.external_id)),
        ...this.groupFields(sent, stored, param),
      };
      groups.put(index, stored, next, groupFields, sent.position !== undefined);
      if (sent.options === undefined) keepOptionsOf.add(next.id);
      else this.planOptions(next.id, sent.options, param);
    }
    if (this.replace) {
      groups.removeMissingMine();
      this.options.removeMissingMine((option) => keepOptionsOf.has(option.group_id));
    }
  }

  private groupFields(sent: SyncOptionGroupInput, stored: GroupRow | undefined, param: string) {
    const product = sent.product_external_id;
    const min = sent.min_select ?? stored?.min_select ?? 0;
    const max = sent.max_select ?? stored?.max_select ?? 1;
    if (min > max)
      throw new ApiError(
        'invalid_request',
        `${param}.min_select (${min}) must not be above max_select (${max}).`,
        {
          param: `${param}.min_select`,
        },
      );
    return {
      product_id:
        product === undefined
          ? (stored?.product_id ?? null)
          : product === null
            ? null
            : this.reference(this.products, product, `${param}.product_external_id`, 'product').id,
      name:
        sent.name === undefined
          ? storedOrNeeded(stored, 'name', param, 'option group')
          : checkedText(sent.name, `${param}.name`, maxGroupName),
      min_select: min,
      max_select: max,
      position: sent.position ?? stored?.position ?? unplaced,
    };
  }

  private planOptions(groupId: string, options: SyncOptionInput[], groupParam: string): void {
    const state = this.options;
    for (const [index, sent] of options.entries()) {
      const param = `${groupParam}.options[${index}]`;
      const stored = state.key(sent.external_id, `${param}.external_id`);
      const available = sent.available ?? stored?.available ?? true;
      const next: OptionRow = {
        ...(stored ?? { ...this.newRow(sent.external_id), unavailable_until: null }),
        group_id: groupId,
        name:
          sent.name === undefined
            ? storedOrNeeded(stored, 'name', param, 'option')
            : checkedText(sent.name, `${param}.name`, maxGroupName),
        price_delta: sent.price_delta ?? storedOrNeeded(stored, 'price_delta', param, 'option'),
        available,
        unavailable_until: available ? null : (stored?.unavailable_until ?? null),
        position: sent.position ?? stored?.position ?? unplaced,
      };
      state.put(index, stored, next, optionFields, sent.position !== undefined);
    }
  }

  /**
   * A deleted product's own groups go with it (any app's; one the body keeps is a 400 on its
   * product_external_id), and a deleted group's options with it (any app's).
   */
  private removeWithRemovedOwners(): void {
    if (this.products.removed.size > 0)
      for (const group of [...this.groups.final.values()]) {
        if (group.product_id === null || !this.products.removed.has(group.product_id)) continue;
        const index = this.groups.bodyIndex.get(group.id);
        if (index !== undefined) {
          const param = `option_groups[${index}].product_external_id`;
          throw new ApiError('invalid_request', `${param}: its product is deleted by this sync.`, { param });
        }
        this.groups.remove(group.id);
      }
    if (this.groups.removed.size > 0)
      for (const option of [...this.options.final.values()])
        if (this.groups.removed.has(option.group_id)) this.options.remove(option.id);
  }

  /** The restaurant's products of a deleted category move to no category. */
  private moveOutOfRemovedCategories(): void {
    if (this.categories.removed.size === 0) return;
    for (const product of [...this.products.final.values()])
      if (product.category_id !== null && this.categories.removed.has(product.category_id))
        this.products.touch({ ...product, category_id: null, updated_at: this.now });
  }

  /**
   * The shared groups each product links after the sync: the ones it named, or those it linked
   * that are still shared. Then the products whose updated_at moves with their groups.
   */
  private planLinks(): { products: string[]; rows: LinkRow[] } {
    const groups = this.groups.final;
    const linksBefore = mapValues(
      groupBy(this.stored.links, (link) => link.product_id),
      (links) => links.sort(byPosition).map((link) => link.group_id),
    );
    const linksAfter = new Map<string, string[]>();
    const rewritten: string[] = [];
    const rows: LinkRow[] = [];
    for (const product of this.products.final.values()) {
      const requested = this.requestedLinks.get(product.id);
      const before = linksBefore[product.id] ?? [];
      const after =
        requested === undefined
          ? before.filter((groupId) => groups.get(groupId)?.product_id === null)
          : this.checkedLinks(product, requested);
      linksAfter.set(product.id, after);
      if (sameValue(before, after)) continue;
      rewritten.push(product.id);
      for (const [position, groupId] of after.entries())
        rows.push({ product_id: product.id, group_id: groupId, position });
    }
    this.touchProductsOfChangedGroups(linksBefore, linksAfter);
    return { products: rewritten, rows };
  }

  /*
   * option_group_external_ids of a product: each names one of the caller's groups, once; a shared
   * group is linked, the product's own group is skipped (it comes first by itself), another
   * product's own group is refused.
   */
  private checkedLinks(product: ProductRow, requested: readonly string[]): string[] {
    const shared: string[] = [];
    for (const [position, externalId] of requested.entries()) {
      const param = `products[${this.products.bodyIndex.get(product.id)}].option_group_external_ids[${position}]`;
      if (requested.indexOf(externalId) !== position)
        throw new ApiError('invalid_request', `${param} repeats option group "${externalId}".`, { param });
      const group = this.reference(this.groups, externalId, param, 'option group');
      if (group.product_id === null) shared.push(group.id);
      else if (group.product_id !== product.id)
        throw new ApiError(
          'invalid_request',
          `${param}: option group "${externalId}" belongs to another product only; link shared groups.`,
          { param },
        );
    }
    return shared;
  }

  /**
   * Spec: a product's updated_at "also changes with its option groups": its option_group_ids
   * changed, or a group it uses (before or after) changed its own fields.
   */
  private touchProductsOfChangedGroups(
    linksBefore: Record<string, string[]>,
    linksAfter: Map<string, string[]>,
  ): void {
    const ownGroups = (rows: Iterable<GroupRow>) =>
      mapValues(
        groupBy(
          [...rows].filter((group) => group.product_id !== null),
          (group) => group.product_id as string,
        ),
        (own) => own.sort(byPosition).map((group) => group.id),
      );
    const ownBefore = ownGroups(this.stored.groups);
    const ownAfter = ownGroups(this.groups.final.values());
    const changedGroup = (id: string) => this.groups.updated.has(id) || this.groups.removed.has(id);
    for (const product of [...this.products.final.values()]) {
      if (this.products.created.has(product.id)) continue;
      const before = [...(ownBefore[product.id] ?? []), ...(linksBefore[product.id] ?? [])];
      const after = [...(ownAfter[product.id] ?? []), ...(linksAfter.get(product.id) ?? [])];
      if (!sameValue(before, after) || before.some(changedGroup) || after.some(changedGroup))
        this.products.touch({ ...product, updated_at: this.now });
    }
  }

  /** What replace deleted that the caller had not keyed: other apps' or the dashboard's objects. */
  private warnings(): SyncWarning[] {
    const unmanaged = <R extends Keyed>(state: KindState<R>) =>
      [...state.removed].filter((id) => state.byId.get(id)?.external_id_app_id !== this.viewer).length;
    const warnings: SyncWarning[] = [];
    const options = unmanaged(this.options);
    if (options > 0)
      warnings.push({
        code: 'unmanaged_options_deleted',
        message: `${options} option(s) without your external_id went with their deleted option groups.`,
      });
    const groups = unmanaged(this.groups);
    if (groups > 0)
      warnings.push({
        code: 'unmanaged_option_groups_deleted',
        message: `${groups} option group(s) without your external_id went with their deleted products.`,
      });
    return warnings;
  }
}

/**
 * A field the body leaves out: an existing object keeps its stored value; a new one needs the
 * field, so it is a 400 on it (`option_groups[0].options[2].price_delta`).
 */
function storedOrNeeded<R extends object, K extends keyof R & string>(
  stored: R | undefined,
  field: K,
  param: string,
  what: string,
): R[K] {
  if (stored !== undefined) return stored[field];
  const at = `${param}.${field}`;
  throw new ApiError('invalid_request', `Missing required field for a new ${what}: ${at}.`, { param: at });
}

/** Whether a field keeps its value: the same text, number, boolean or null, or the same list of texts. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => item === b[i]);
}

/** Stored order: position, ties by id (links: by group id). */
function byPosition(a: { position: number; id?: string; group_id?: string }, b: typeof a): number {
  if (a.position !== b.position) return a.position - b.position;
  const [ka, kb] = [a.id ?? a.group_id ?? '', b.id ?? b.group_id ?? ''];
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Record<string, T[]> {
  const groups: Record<string, T[]> = {};
  for (const row of rows) {
    const list = groups[keyOf(row)];
    if (list) list.push(row);
    else groups[keyOf(row)] = [row];
  }
  return groups;
}

function mapValues<K extends string, V, W>(record: Record<K, V>, map: (value: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value as V)])) as Record<
    K,
    W
  >;
}

/** Gives each unplaced new object the position after the last one of its scope, in the body's order. */
function placeLast<R extends Keyed & { position: number }>(state: KindState<R>, scopeOf: (row: R) => string) {
  if (state.unplaced.length === 0) return;
  const highest = new Map<string, number>();
  for (const row of state.final.values()) {
    const scope = scopeOf(row);
    if (row.position > (highest.get(scope) ?? -1)) highest.set(scope, row.position);
  }
  for (const id of state.unplaced) {
    const row = state.final.get(id) as R;
    const position = (highest.get(scopeOf(row)) ?? -1) + 1;
    highest.set(scopeOf(row), position);
    row.position = position;
  }
}
