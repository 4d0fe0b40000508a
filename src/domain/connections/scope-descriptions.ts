import type { Scope } from '../shared/scopes.ts';

/** What each scope lets an app do, in plain words (the consent page, e-mails to owners). */
export const scopeDescriptions: Readonly<Record<Scope, string>> = {
  'orders:read': 'see your orders',
  'orders:write': 'take over, accept, advance and cancel your orders',
  'menu:read': 'see your menu',
  'menu:write': 'change your menu and mark items sold out',
  'store:read': 'see your store settings, opening hours, tables and areas',
  'store:write': 'change your store settings, opening hours, special days and pause ordering',
  'reservations:read': 'see your reservations, tables and areas',
  'reservations:write': 'create and change reservations',
  'reports:read': 'see your sales reports',
};
