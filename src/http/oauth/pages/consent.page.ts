import type { ConsentRestaurant } from '../../../domain/connections/consent-rules.ts';
import { html } from './html.ts';
import { type AppSummary, appSummary, csrfField, page } from './layout.ts';

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
export function consentPage(input: ConsentPageInput): string {
  const signedIn = html`<div>Signed in as ${input.email}.
<form class="inline" method="post" action="${input.signOutAction}">${csrfField(input.csrfToken)}<button type="submit" class="link">Not you? Sign out</button></form></div>`;
  const notices = input.notices.map((notice) => html`<p class="note">${notice}</p>`);
  if (input.restaurants.length === 0) {
    return page(
      `Connect ${input.app.name}`,
      html`<h1>Connect ${input.app.name}</h1>
${appSummary(input.app)}
${signedIn}
${notices}
<p role="alert">You have no restaurant this app can be connected to. Only a restaurant's owner can connect apps to it.</p>
<form method="post" action="${input.consentAction}">
${csrfField(input.csrfToken)}
<button type="submit" name="decision" value="cancel">Back to ${input.app.name}</button>
</form>`,
    );
  }
  return page(
    `Connect ${input.app.name}`,
    html`<h1>Connect ${input.app.name} to your restaurant</h1>
${appSummary(input.app)}
${signedIn}
${notices}
<form method="post" action="${input.consentAction}">
${csrfField(input.csrfToken)}
<fieldset>
<legend>Restaurant</legend>
${input.restaurants.map(
  (restaurant, i) =>
    html`<label><input type="radio" name="restaurant" value="${restaurant.id}" required${i === 0 && html` checked`}> ${restaurant.name}${!restaurant.livemode && ' (test restaurant)'}</label>`,
)}
</fieldset>
<h2>${input.app.name} will be able to</h2>
<ul>
${input.abilities.map((ability) => html`<li>${ability}</li>`)}
</ul>
<button type="submit" name="decision" value="connect" class="primary">Connect</button>
<button type="submit" name="decision" value="cancel" formnovalidate>Cancel</button>
</form>`,
  );
}
