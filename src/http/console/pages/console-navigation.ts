import type { NavItem, PageView } from '../../web/page.ts';

export type ConsoleSection = 'home' | 'apps' | 'try-it' | 'account';

/** The console's navigation; an app's own pages (its webhook, its connections) are under Apps. */
export function consoleNavigation(view: PageView, current: ConsoleSection): NavItem[] {
  const entries: [ConsoleSection, string, string][] = [
    ['home', 'nav.home', '/console'],
    ['apps', 'nav.apps', '/console/apps'],
    ['try-it', 'nav.tryIt', '/console/try-it'],
    ['account', 'nav.account', '/console/account'],
  ];
  return entries.map(([section, label, href]) => ({
    label: view.t(label),
    href,
    current: section === current,
  }));
}
