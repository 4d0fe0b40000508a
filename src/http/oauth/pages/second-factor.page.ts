import { html } from './html.ts';
import { type AppSummary, alert, csrfField, page } from './layout.ts';

export function secondFactorPage(input: {
  app: AppSummary;
  action: string;
  csrfToken: string;
  error?: string;
}): string {
  return page(
    'Second factor',
    html`<h1>Enter your code</h1>
<p>Your account has a second factor. Enter the 6-digit code your authenticator app shows for Servery.</p>
${alert(input.error)}
<form method="post" action="${input.action}">
${csrfField(input.csrfToken)}
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required autofocus>
<button type="submit" class="primary">Continue</button>
</form>`,
  );
}
