// The auction before a deal's play (parlée, manillen): the prompt that says what the player's call
// is, and the player's legal calls as buttons. The server decides which calls are legal
// (view.legal_calls); this only draws them, and the prompt only describes them.
import { SYMBOL } from "./cards.js";
import { callName } from "./contract.js";
import { t } from "./i18n.js";
import { h } from "./dom.js";

const SUIT_CALLS = ["C", "D", "H", "S"];

export class Auction {
  // `el`: the group of the player's call buttons; `onCall(call)` when one is chosen.
  constructor(el, { onCall }) {
    this.el = el;
    this.onCall = onCall;
    this.calls = [];
    this.prompt = h("p", { class: "call-prompt", id: "call-prompt" });
    this.buttons = h("div", { class: "calls" });
    el.replaceChildren(this.prompt, this.buttons);
    el.setAttribute("aria-label", t("yourCallGroup"));
    el.setAttribute("aria-describedby", "call-prompt");
    el.addEventListener("click", (e) => {
      const button = e.target.closest("button[data-call]");
      if (button && !button.disabled) this.onCall(button.dataset.call);
    });
  }

  // Shows `calls` (the server's legal calls, in its order) as buttons under `prompt`, the words
  // of this call; none hides the group.
  show(calls, prompt = "") {
    const same = calls.length === this.calls.length && calls.every((c, i) => c === this.calls[i]);
    this.calls = calls.slice();
    this.el.hidden = !calls.length;
    this.prompt.textContent = calls.length ? prompt : "";
    if (!same) {
      this.buttons.replaceChildren(...calls.map((call) => {
        const sym = SUIT_CALLS.includes(call)
          ? h("span", { class: `suit-sym suit-${call}`, "aria-hidden": "true" }, SYMBOL[call]) : null;
        return h("button", { type: "button", class: "btn call", "data-call": call }, sym, sym ? " " : null,
          callName(call));
      }));
    }
    for (const b of this.buttons.querySelectorAll("button")) b.disabled = false;
  }

  get promptText() {
    return this.prompt.textContent;
  }

  lock() {
    for (const b of this.buttons.querySelectorAll("button")) b.disabled = true;
  }

  hide() {
    this.show([]);
  }

  focus() {
    const first = this.buttons.querySelector("button");
    if (!first) return;
    // no jump of the page: the contract line above stays in view (scrolled only if out of sight)
    first.focus({ preventScroll: true });
    first.scrollIntoView({ block: "nearest" });
  }
}
