import type { TFunction } from 'i18next';
import type { App, AppType } from '../../../domain/apps/apps.service.ts';
import { classifyRedirectUri } from '../../../domain/apps/redirect-uri.ts';
import type { InputError } from '../../../domain/shared/errors.ts';
import { FormReader, type FormValues } from '../../dashboard/pages/menu-forms.ts';
import type { FormError } from '../../web/page.ts';

/*
 * The app form of the console (register and change): field names are the JSON API's
 * (`name`, `type`, `redirect_uris`, `scopes`, `logo_url`, `website`), so the refusal's `param`
 * names the field to show its error beside. Redirect URIs are typed one per line.
 */

/** What the sent form asks of createApp/updateApp (the type only on registering). */
export function appInput(values: FormValues) {
  const form = new FormReader(values);
  return {
    name: form.text('name'),
    type: form.text('type') as AppType,
    redirectUris: redirectUrisOf(form.text('redirect_uris')),
    scopes: form.list('scopes'),
    logoUrl: form.optionalText('logo_url')?.trim() ?? null,
    website: form.optionalText('website')?.trim() ?? null,
  };
}

/** One URI a line; blank lines and spaces around a URI do not count. */
function redirectUrisOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The form as an app's page shows it first. */
export function appValues(app: App): FormValues {
  return {
    name: app.name,
    redirect_uris: app.redirectUris.join('\n'),
    scopes: app.scopes,
    logo_url: app.logoUrl ?? '',
    website: app.website ?? '',
  };
}

/**
 * The error beside the field the refusal names; a refused redirect URI (`redirect_uris[i]`) is
 * named with the rule it breaks (redirect-uri.ts), in the page's language.
 */
export function appFieldError(t: TFunction, error: InputError, redirectUris: readonly string[]): FormError {
  const param = error.param ?? '';
  const index = /^redirect_uris\[(\d+)\]$/.exec(param)?.[1];
  if (index !== undefined) {
    const uri = redirectUris[Number(index)] ?? '';
    const result = classifyRedirectUri(uri);
    const rule = 'rule' in result ? result.rule : 'notAbsolute';
    return { field: 'redirect_uris', message: t(`appForm.errors.redirectUri.${rule}`, { uri }) };
  }
  const field = ['name', 'type', 'redirect_uris', 'scopes', 'logo_url', 'website'].includes(param)
    ? param
    : undefined;
  return field ? { field, message: t(`appForm.errors.${field}`) } : { message: t('appForm.errors.other') };
}
