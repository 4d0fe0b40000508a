import type { ConsentRestaurant } from '../../../domain/connections/consent-rules.ts';
import { type PageView, renderPage } from '../../web/page.ts';
import type { AppSummary } from './view.ts';

export interface ConsentPageInput {
  app: AppSummary;
  email: string;
  restaurants: readonly ConsentRestaurant[];
  /** What the app will be able to do, one plain sentence part per scope. */
  abilities: readonly string[];
  /** Why the choice is narrowed (an unapproved app, a redirect address for testing). */
  notices: readonly string[];
  consentAction: string;
  signOutAction: string;
  csrfToken: string;
}

/** The owner's decision: which restaurant, what the app may do there, Connect or Cancel. */
export function consentPage(view: PageView, input: ConsentPageInput): string {
  return renderPage('oauth/pages/consent', view, input);
}
