/*
 * The order board's live updates (dashboard/pages/orders.eta); the board works without them.
 * - The JSON API's stream sends the board's version when it opens and whenever it changes; when it
 *   differs from the board's `data-version`, the board alone is fetched again and swapped in (not
 *   while someone types in one of its fields: then once they leave it). Open reasons stay open.
 * - A pending order not seen before is highlighted (its "New" badge), announced in the live region
 *   and, once the sound is switched on, chimed (a WebAudio tone: browsers only play sound after
 *   the person has used the page, so the switch is remembered and the sound is resumed at the
 *   first click or key).
 * - With automatic printing on (`data-auto-print`), each order seen accepted (past pending, not
 *   final) gets its ticket printed: its print view loaded in a frame out of sight and printed, one
 *   after another, once per order in this browser (the orders printed are kept in localStorage).
 *   The first time (or when the switch was off meanwhile) the orders already accepted are only
 *   noted: turning printing on does not print the day's orders again.
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
  const printedKey = `servery.kitchen.printed.${first.dataset.restaurant}`;
  const printQueue = [];
  let printing = false;

  /** Prints the next ticket waiting: its print view in a frame, printed once loaded. */
  function printNext() {
    if (printing || printQueue.length === 0) return;
    printing = true;
    const frame = document.createElement('iframe');
    frame.className = 'ticket-frame';
    frame.title = first.dataset.printingLabel;
    frame.tabIndex = -1;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      frame.remove();
      printing = false;
      printNext();
    };
    frame.addEventListener('load', () => {
      frame.contentWindow.addEventListener('afterprint', finish, { once: true });
      frame.contentWindow.print();
      // Browsers whose print() does not wait for the dialog, nor tell when it closes.
      setTimeout(finish, 60_000);
    });
    frame.src = printQueue.shift();
    document.body.append(frame);
  }

  /** Queues the tickets of the orders accepted since this browser last looked (automatic printing). */
  function autoPrint(board) {
    if (board.dataset.autoPrint !== 'on') {
      localStorage.removeItem(printedKey);
      return;
    }
    const stored = localStorage.getItem(printedKey);
    const printed = new Set(stored === null ? [] : JSON.parse(stored));
    const cards = [...board.querySelectorAll('[data-order]')];
    for (const card of cards) {
      const accepted = !['pending', 'completed', 'cancelled'].includes(card.dataset.status);
      if (!accepted || printed.has(card.dataset.order)) continue;
      printed.add(card.dataset.order);
      if (stored !== null) printQueue.push(card.dataset.ticket);
    }
    // Only the orders still on the board are kept.
    const onBoard = new Set(cards.map((card) => card.dataset.order));
    localStorage.setItem(printedKey, JSON.stringify([...printed].filter((id) => onBoard.has(id))));
    printNext();
  }

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
      autoPrint(next);
    } finally {
      fetching = false;
      if (wanted !== null) refresh();
    }
  }

  autoPrint(first);
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
