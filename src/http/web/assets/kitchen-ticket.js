// A kitchen ticket's Print button (dashboard/pages/orders-ticket.eta): shown only where scripts run.
const button = document.querySelector('[data-print]');
if (button) {
  button.hidden = false;
  button.addEventListener('click', () => window.print());
}
