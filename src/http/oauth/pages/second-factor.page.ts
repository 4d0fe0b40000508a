import { type FormError, type PageView, renderPage } from '../../web/page.ts';
import type { AppSummary } from './view.ts';

export function secondFactorPage(
  view: PageView,
  input: { app: AppSummary; action: string; csrfToken: string; errors?: FormError[] },
): string {
  return renderPage('oauth/pages/second-factor', view, input);
}
