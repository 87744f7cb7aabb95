// The strongest table while its bots' pool is full (503 bots_busy on a new free game): how many
// games wait before this one, said politely and kept up to date, and a button that takes the
// club's table the server offers instead. The server decides; the page only waits its turn.
import { h } from "./dom.js";
import { num, t } from "./i18n.js";
import { sleep } from "./api.js";

let shown = null;

// Resolves "club" when the player takes the offer, else "again" once `retry_after` seconds have
// passed (the caller asks again and, still full, calls this again: the count is redrawn).
export function waitTurn(container, busy) {
  if (!shown) {
    const text = h("p", {});
    const button = h("button", { type: "button", class: "busy-club" }, t("playAtClub"));
    shown = { box: h("div", { class: "busy-table", role: "status", "aria-live": "polite" }, text, button), text, button };
    container.prepend(shown.box);
  }
  shown.text.textContent = t("tableBusy", { waiting: num(busy.waiting || 0) });
  const { button } = shown;
  return new Promise((resolve) => {
    let done = false;
    const take = () => {
      if (done) return;
      done = true;
      resolve("club");
    };
    button.onclick = take;
    sleep(Math.max(1, busy.retry_after || 2) * 1000).then(() => {
      if (done) return;
      done = true;
      resolve("again");
    });
  });
}

// The notice goes once the game is dealt (or given up).
export function clearTurn() {
  if (shown) shown.box.remove();
  shown = null;
}
