import { html } from './html.ts';
import { type AppSummary, alert, appSummary, csrfField, page } from './layout.ts';

export function signInPage(input: {
  app: AppSummary;
  action: string;
  csrfToken: string;
  email?: string;
  error?: string;
}): string {
  return page(
    'Sign in',
    html`<h1>Sign in to connect ${input.app.name}</h1>
${appSummary(input.app)}
<p>${input.app.name} asks to connect to your restaurant. Sign in with your Servery owner account to decide.</p>
${alert(input.error)}
<form method="post" action="${input.action}">
${csrfField(input.csrfToken)}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
</form>`,
  );
}
