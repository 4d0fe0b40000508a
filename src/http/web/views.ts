import path from 'node:path';
import { Eta } from 'eta';

/*
 * The pages' templates (Eta): `*.eta` files under src/http, named from there: the layout and the
 * components every page is built from in `web/views/`, each surface's pages in
 * `<surface>/pages/`. Every `<%= value %>` is HTML-escaped (Eta's autoEscape, kept on); `<%~ %>`
 * inserts markup as it is and is only for what another template made (the layout's body, a
 * component).
 */
const eta = new Eta({
  views: path.resolve(import.meta.dirname, '..'),
  autoEscape: true,
  cache: true,
});

/** Renders the template `name` (e.g. `console/pages/home`) with `data` as `it`. */
export function render(name: string, data: object): string {
  return eta.render(name, data);
}
