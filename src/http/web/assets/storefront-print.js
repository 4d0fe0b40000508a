// The receipt's Print button (storefront receipt page): shown only where scripts run.
const button = document.querySelector('[data-print]');
if (button) {
  button.hidden = false;
  button.addEventListener('click', () => window.print());
}
