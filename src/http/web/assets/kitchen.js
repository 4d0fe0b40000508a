/*
 * The order board's live updates (dashboard/pages/orders.eta); the board works without them.
 * - The JSON API's stream sends the board's version when it opens and whenever it changes; when it
 *   differs from the board's `data-version`, the board alone is fetched again and swapped in (not
 *   while someone types in one of its fields: then once they leave it). Open reasons stay open.
 * - A pending order not seen before is highlighted (its "New" badge), announced in the live region
 *   and, once the sound is switched on, chimed (a WebAudio tone: browsers only play sound after
 *   the person has used the page, so the switch is remembered and the sound is resumed at the
 *   first click or key).
 * - Signed out or gone: the page is loaded again, which then shows why.
 */
(() => {
  const boardOf = () => document.getElementById('order-board');
  const first = boardOf();
  if (!first || !('EventSource' in window)) return;
  const news = document.getElementById('board-news');
  const soundButton = document.getElementById('board-sound');
  const soundKey = 'servery.kitchen.sound';

  const pendingOf = (board) =>
    [...board.querySelectorAll('[data-status="pending"]')].map((card) => card.dataset.order);
  const seen = new Set(pendingOf(first));
  const fresh = new Set();

  let audio = null;
  function soundOn() {
    if (!audio) audio = new AudioContext();
    if (audio.state === 'suspended') audio.resume();
  }
  function showSound() {
    const on = localStorage.getItem(soundKey) === 'on';
    soundButton.setAttribute('aria-pressed', String(on));
    soundButton.textContent = on ? soundButton.dataset.on : soundButton.dataset.off;
    return on;
  }
  function chime() {
    if (audio?.state !== 'running') return;
    const start = audio.currentTime;
    for (const [offset, frequency] of [
      [0, 880],
      [0.2, 1320],
    ]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + offset);
      gain.gain.exponentialRampToValueAtTime(0.4, start + offset + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.35);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + offset);
      tone.stop(start + offset + 0.4);
    }
  }
  soundButton.hidden = false;
  if (showSound()) {
    const resume = () => soundOn();
    document.addEventListener('pointerdown', resume, { once: true });
    document.addEventListener('keydown', resume, { once: true });
  }
  soundButton.addEventListener('click', () => {
    const on = localStorage.getItem(soundKey) !== 'on';
    localStorage.setItem(soundKey, on ? 'on' : 'off');
    if (on) {
      soundOn();
      chime();
    }
    showSound();
  });

  /** Highlights the new pending orders; announces and chimes for those not seen before. */
  function mark(board) {
    const arrived = [];
    for (const id of pendingOf(board)) {
      if (!seen.has(id)) {
        seen.add(id);
        fresh.add(id);
        arrived.push(board.querySelector(`[data-order="${id}"]`).dataset.code);
      }
    }
    for (const card of board.querySelectorAll('[data-order]')) {
      const isNew = fresh.has(card.dataset.order) && card.dataset.status === 'pending';
      card.classList.toggle('is-new', isNew);
      card.querySelector('.new-badge').hidden = !isNew;
    }
    if (arrived.length > 0) {
      news.textContent = `${news.dataset.label} ${arrived.join(', ')}`;
      chime();
    }
  }

  let wanted = null;
  let fetching = false;
  const editing = (board) =>
    board.contains(document.activeElement) && document.activeElement.matches('input, textarea, select');

  async function refresh() {
    const board = boardOf();
    if (fetching || wanted === null || wanted === board.dataset.version) return;
    if (editing(board)) {
      board.addEventListener('focusout', () => setTimeout(refresh, 0), { once: true });
      return;
    }
    wanted = null;
    fetching = true;
    try {
      const response = await fetch(board.dataset.fragment, { credentials: 'same-origin' });
      if (response.redirected || !response.ok) return location.reload();
      const template = document.createElement('template');
      template.innerHTML = await response.text();
      const next = template.content.getElementById('order-board');
      if (!next) return location.reload();
      for (const open of board.querySelectorAll('details[open]')) {
        const same = next.querySelector(`#${CSS.escape(open.id)}`);
        if (same) same.open = true;
      }
      board.replaceWith(next);
      mark(next);
    } finally {
      fetching = false;
      if (wanted !== null) refresh();
    }
  }

  const stream = new EventSource(first.dataset.stream);
  stream.addEventListener('orders', (event) => {
    wanted = event.data;
    refresh();
  });
  // The stream refused (signed out, no longer a member): the page shows why.
  stream.addEventListener('error', () => {
    if (stream.readyState === EventSource.CLOSED) setTimeout(() => location.reload(), 5000);
  });
})();
