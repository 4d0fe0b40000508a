/** The nine scopes an app may ask for (spec: Authentication, Scopes). */
export const scopes = [
  'orders:read',
  'orders:write',
  'menu:read',
  'menu:write',
  'store:read',
  'store:write',
  'reservations:read',
  'reservations:write',
  'reports:read',
] as const;

export type Scope = (typeof scopes)[number];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

export const plans = ['starter', 'pro', 'premium'] as const;
export type Plan = (typeof plans)[number];
