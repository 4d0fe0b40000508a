import { type FormError, type PageView, renderPage } from '../../web/page.ts';
import type { AppSummary } from './view.ts';

export function signInPage(
  view: PageView,
  input: { app: AppSummary; action: string; csrfToken: string; email?: string; errors?: FormError[] },
): string {
  return renderPage('oauth/pages/sign-in', view, input);
}
