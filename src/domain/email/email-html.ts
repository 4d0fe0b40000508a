import path from 'node:path';
import { Eta } from 'eta';

/*
 * The HTML part of the guests' mails: Eta templates in `views/`, every `<%= value %>` escaped
 * (autoEscape), styles inline (mail programs drop style sheets), one column at most 600 px wide.
 */
const eta = new Eta({ views: path.resolve(import.meta.dirname, 'views'), autoEscape: true, cache: true });

/** Renders `views/<name>.eta` with `data` as `it`. */
export function renderHtml(name: string, data: object): string {
  return eta.render(name, data);
}
