import type { FastifyReply } from 'fastify';
import type { Role } from '../../../domain/shared/context.ts';
import { messagePage, type NavItem, type PageView, sendPage } from '../../web/page.ts';

type Section =
  | 'overview'
  | 'store'
  | 'tables'
  | 'orders'
  | 'printing'
  | 'reservations'
  | 'menu'
  | 'reports'
  | 'apps'
  | 'webhooks'
  | 'team';

/**
 * The sections staff may open too (the kitchen and the host stand); the others are the owners', as
 * in the JSON API.
 */
const staffSections: readonly Section[] = ['overview', 'orders', 'reservations'];

/** The dashboard's own navigation, outside a restaurant. */
export function dashboardNavigation(view: PageView, current: 'restaurants' | 'account'): NavItem[] {
  return [
    { label: view.t('nav.restaurants'), href: '/dashboard', current: current === 'restaurants' },
    { label: view.t('nav.account'), href: '/dashboard/account', current: current === 'account' },
  ];
}

/** A restaurant's navigation: every section for owners; for staff, the others as text. */
export function restaurantNavigation(
  view: PageView,
  restaurantId: string,
  current: Section,
  role: Role | null,
): NavItem[] {
  const home = `/dashboard/restaurants/${restaurantId}`;
  const sections: Section[] = [
    'overview',
    'store',
    'tables',
    'orders',
    'printing',
    'reservations',
    'menu',
    'reports',
    'apps',
    'webhooks',
    'team',
  ];
  return sections.map((section) => {
    const label = view.t(`nav.${section}`);
    if (role !== 'owner' && !staffSections.includes(section)) return { label };
    return {
      label,
      href: section === 'overview' ? home : `${home}/${section}`,
      current: section === current,
    };
  });
}

/** The answer for a restaurant the account may not see: 404, as if it did not exist. */
export function restaurantNotFound(reply: FastifyReply, view: PageView): FastifyReply {
  const nav = [{ label: view.t('nav.restaurants'), href: '/dashboard' }];
  return sendPage(
    reply,
    404,
    messagePage(
      { ...view, nav },
      {
        title: view.t('restaurant.notFoundTitle'),
        message: view.t('restaurant.notFound'),
        link: { href: '/dashboard', text: view.t('restaurant.back') },
      },
    ),
  );
}
