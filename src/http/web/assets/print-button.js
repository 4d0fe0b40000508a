// A page's Print button (the storefront's receipt, the dashboard's kitchen ticket): shown only where
// scripts run, it opens the browser's print dialog.
const button = document.querySelector('[data-print]');
if (button) {
  button.hidden = false;
  button.addEventListener('click', () => window.print());
}
