/*
 * The order's page follows its order: every 5 seconds it asks the guest API (the element's
 * data-order-api) and writes the status, payment and ready time in words into the page, inside
 * an aria-live region, so screen readers announce a change. It stops once the order is final.
 * Without JavaScript the page shows the order as it was when loaded (reload to see more).
 */
const root = document.querySelector('[data-order-api]');
if (root) {
  const words = JSON.parse(root.dataset.words);
  const finals = ['completed', 'cancelled'];
  const time = new Intl.DateTimeFormat(document.documentElement.lang, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: root.dataset.zone,
  });
  const show = (name, value, text) => {
    const field = root.querySelector(`[data-field="${name}"]`);
    if (field && field.dataset.value !== value) {
      field.dataset.value = value;
      field.textContent = text;
    }
  };
  const follow = async () => {
    try {
      const response = await fetch(root.dataset.orderApi, { headers: { accept: 'application/json' } });
      if (response.ok) {
        const order = await response.json();
        show('status', order.status, words.status[order.status]);
        show('payment', order.payment.status, words.payment[order.payment.status]);
        const ready = order.estimated_ready_at ?? '';
        show('ready', ready, ready ? time.format(new Date(ready)) : words.notYet);
        if (finals.includes(order.status)) return;
      }
    } catch {
      // Offline for a moment: ask again at the next turn.
    }
    setTimeout(follow, 5000);
  };
  setTimeout(follow, 5000);
}
