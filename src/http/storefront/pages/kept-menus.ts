import { LRUCache } from 'lru-cache';
import type { Menu } from '../../../domain/menu/menu.schema.ts';
import { getMenu } from '../../../domain/menu/menu.service.ts';
import { type Ctx, tenantOf } from '../../../domain/shared/context.ts';

/*
 * The menus the storefront's pages show, kept per restaurant under its menu version (the count of
 * its menu changes, read with the store on every page: countMenuChange): a page whose version is
 * the kept one's shows the kept menu, any other reads it anew. Several processes each keep their
 * own, and none shows a menu older than the version it read. Sold-out times are compared with the
 * clock where a page draws them, so a kept menu needs no change when one passes.
 *
 * Kept for the most recently shown restaurants, up to `productsKept` products in all (a product
 * takes about a kilobyte). A kept menu is shared by the pages that show it: they never change it.
 */
const productsKept = 50_000;

export type KeptMenus = (ctx: Ctx, version: string) => Promise<Menu>;

export function keptMenus(): KeptMenus {
  const menus = new LRUCache<string, { version: string; menu: Menu }>({
    maxSize: productsKept,
    sizeCalculation: (kept) => Math.max(1, kept.menu.products.length),
  });
  return async (ctx, version) => {
    const key = tenantOf(ctx);
    const kept = menus.get(key);
    if (kept?.version === version) return kept.menu;
    const menu = await getMenu(ctx);
    menus.set(key, { version, menu });
    return menu;
  };
}

/*
 * The menu's sections as drawn (menu-sections.eta), kept by what they are drawn from: the
 * restaurant, its menu version, the page's language and base path, and which products are on sale
 * now (a sold-out time passing draws them anew). Pages with a filter draw their own. Up to
 * `htmlKept` characters in all, least recently shown dropped first.
 */
const htmlKept = 32 * 1024 * 1024;

export type KeptSections = (key: readonly string[], draw: () => string) => string;

export function keptSections(): KeptSections {
  const drawn = new LRUCache<string, string>({
    maxSize: htmlKept,
    sizeCalculation: (html) => html.length || 1,
  });
  return (key, draw) => {
    const name = key.join('\u0000');
    let html = drawn.get(name);
    if (html === undefined) {
      html = draw();
      drawn.set(name, html);
    }
    return html;
  };
}
