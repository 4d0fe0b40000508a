import type { FastifyReply } from 'fastify';
import type { Role } from '../../../domain/shared/context.ts';
import { messagePage, type NavItem, type PageView, sendPage } from '../../web/page.ts';

/** The restaurant's pages with a link; the others are still to come (shown as text). */
type Section = 'overview' | 'menu' | 'orders';

/**
 * A restaurant's navigation: the orders are linked for owners and staff (the kitchen), the menu
 * for owners, who edit it (menuEditors).
 */
export function restaurantNavigation(
  view: PageView,
  restaurantId: string,
  current: Section,
  role: Role | null,
): NavItem[] {
  const home = `/dashboard/restaurants/${restaurantId}`;
  return [
    { label: view.t('nav.overview'), href: home, current: current === 'overview' },
    ...(['store', 'tables', 'webhooks'] as const).map((section) => ({
      label: view.t(`nav.${section}`),
    })),
    { label: view.t('nav.orders'), href: `${home}/orders`, current: current === 'orders' },
    role === 'owner'
      ? { label: view.t('nav.menu'), href: `${home}/menu`, current: current === 'menu' }
      : { label: view.t('nav.menu') },
  ];
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
