import { ApiError } from './errors.ts';
import type { Plan } from './scopes.ts';

/*
 * The features not every plan includes (spec: Reservations need Pro or Premium; ordering at the
 * table needs Pro and up): the plans that include each, and how a refusal names it.
 */
export const features = {
  reservations: { plans: ['pro', 'premium'], name: 'reservations' },
  dine_in: { plans: ['pro', 'premium'], name: 'dine_in orders' },
} as const satisfies Record<string, { plans: readonly Plan[]; name: string }>;

export type Feature = keyof typeof features;

/** 403 plan_required unless `plan` includes `feature`; `param` names the field asking for it. */
export function requireFeature(plan: Plan, feature: Feature, param?: string): void {
  const { plans, name } = features[feature];
  if ((plans as readonly Plan[]).includes(plan)) return;
  throw new ApiError('plan_required', `The ${plan} plan does not include ${name}.`, {
    ...(param === undefined ? {} : { param }),
  });
}
