import type { FastifyRequest } from 'fastify';
import { localeOf } from '../../web/locale.ts';
import { type PageView, pageView } from '../../web/page.ts';

/** The view of a consent page: in the language `ui_locales` asks for, else the browser's. */
export function consentView(request: FastifyRequest): PageView {
  const uiLocales = (request.query as Record<string, unknown> | undefined)?.ui_locales;
  return pageView(localeOf(request, [typeof uiLocales === 'string' ? uiLocales : undefined]), 'consent');
}

export interface AppSummary {
  name: string;
  logoUrl: string | null;
  website: string | null;
}
