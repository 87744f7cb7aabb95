// The role="log" live region read by screen readers, mirrored in a one-line visible ticker.
const MAX_LINES = 40;
let log = null;
let ticker = null;

export function initAnnouncer(logEl, tickerEl) {
  log = logEl;
  ticker = tickerEl;
}

// `shown: false`: said to screen readers only, for a message the page already shows where it
// belongs (a refused card's reason, under the hand): one place on the screen for a message.
export function announce(text, { shown = true } = {}) {
  if (!text) return;
  if (ticker && shown) ticker.textContent = text;
  if (!log) return;
  const line = document.createElement("p");
  line.textContent = text;
  log.append(line);
  while (log.childElementCount > MAX_LINES) log.firstElementChild.remove();
}

// A new game starts a new log: no line of another game stays, in the log or the ticker.
export function clearLog() {
  if (ticker) ticker.textContent = "";
  if (log) log.replaceChildren();
}

// A visible status (e.g. "Reconnecting…"), also spoken through its role="status" element.
let statusEl = null;
export function initStatus(el) {
  statusEl = el;
}
export function setStatus(text) {
  if (!statusEl) return;
  statusEl.textContent = text || "";
  statusEl.classList.toggle("shown", Boolean(text));
}
