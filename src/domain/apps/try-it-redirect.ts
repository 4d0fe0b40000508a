import type { Ctx } from '../shared/context.ts';
import { type App, appOf, type DeveloperAppRef, findDeveloperApp, updateApp } from './apps.service.ts';

/*
 * Adds one redirect URI to the developer's app (the console's "Try it" adds its own callback
 * address this way), with the checks of every change of an app (updateApp): another developer's
 * app is not_found; the URI must be one an app may register, and an app has at most 10 (an
 * InputError naming `redirect_uris`). A URI already registered is left as it is.
 */
export async function addRedirectUri(ctx: Ctx, ref: DeveloperAppRef, uri: string): Promise<App> {
  const app = appOf(await findDeveloperApp(ctx, ref, true));
  if (app.redirectUris.includes(uri)) return app;
  return updateApp(ctx, ref, { redirectUris: [...app.redirectUris, uri] });
}
