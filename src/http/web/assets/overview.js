/*
 * The restaurant overview's live figures (dashboard/pages/restaurant.eta); the page works without
 * them, as of its loading.
 * - The figures alone (`data-fragment`) are fetched every `data-refresh` ms and whenever the
 *   order stream (`data-stream`, as the order board's) reports a change, then swapped in; not
 *   while focus is inside them (a button about to be pressed): then once it leaves.
 * - Signed out or gone: the page is loaded again, which then shows why.
 */
(() => {
  const liveOf = () => document.getElementById('overview');
  const first = liveOf();
  if (!first) return;

  let wanted = false;
  let fetching = false;

  async function refresh() {
    const live = liveOf();
    if (fetching || !wanted) return;
    if (live.contains(document.activeElement)) {
      live.addEventListener('focusout', () => setTimeout(refresh, 0), { once: true });
      return;
    }
    wanted = false;
    fetching = true;
    try {
      const response = await fetch(live.dataset.fragment, { credentials: 'same-origin' });
      if (response.redirected || !response.ok) return location.reload();
      const template = document.createElement('template');
      template.innerHTML = await response.text();
      const next = template.content.getElementById('overview');
      if (!next) return location.reload();
      live.replaceWith(next);
    } catch {
      // Offline for a moment: the next tick tries again.
    } finally {
      fetching = false;
      if (wanted) refresh();
    }
  }
  const ask = () => {
    wanted = true;
    refresh();
  };

  setInterval(ask, Number(first.dataset.refresh));
  if ('EventSource' in window) {
    // The board's version as the stream opens (the page shows it), then each change.
    let version = null;
    const stream = new EventSource(first.dataset.stream);
    stream.addEventListener('orders', (event) => {
      if (version !== null && event.data !== version) ask();
      version = event.data;
    });
  }
})();
