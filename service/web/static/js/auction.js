// The auction before a deal's play (parlée, manillen): the player's legal calls as buttons, what
// each seat said beside it, and the words of a contract. The server decides which calls are legal
// (view.legal_calls); this only draws them.
import { SYMBOL } from "./cards.js";
import { cat, num, seatName, t } from "./i18n.js";
import { h } from "./dom.js";

const SUIT_CALLS = ["C", "D", "H", "S"];

// A call in words ("Hearts", "No trump", "Pass", "Double"…).
export function callName(call) {
  return cat().callNames[call] || call;
}

// The words of a contract: its trump (or no trump), who chose it, doubled or redoubled, the factor.
export function contractText(contract, factor) {
  const parts = [callName(contract.call), t("chosenBy", { seat: seatName(contract.declarer), you: contract.declarer === 0 })];
  if (contract.doubled) parts.push(t(contract.doubled === 2 ? "redoubled" : "doubled"));
  if (factor > 1) parts.push(t("factor", { n: num(factor) }));
  return parts.join(", ");
}

export class Auction {
  // `el`: the group of the player's call buttons; `onCall(call)` when one is chosen.
  constructor(el, { onCall }) {
    this.el = el;
    this.onCall = onCall;
    this.calls = [];
    el.setAttribute("aria-label", t("yourCallGroup"));
    el.addEventListener("click", (e) => {
      const button = e.target.closest("button[data-call]");
      if (button && !button.disabled) this.onCall(button.dataset.call);
    });
  }

  // Shows `calls` (the server's legal calls, in its order) as buttons; none hides the group.
  show(calls) {
    const same = calls.length === this.calls.length && calls.every((c, i) => c === this.calls[i]);
    this.calls = calls.slice();
    this.el.hidden = !calls.length;
    if (!same) {
      this.el.replaceChildren(...calls.map((call) => {
        const sym = SUIT_CALLS.includes(call)
          ? h("span", { class: `suit-sym suit-${call}`, "aria-hidden": "true" }, SYMBOL[call]) : null;
        return h("button", { type: "button", class: "btn call", "data-call": call }, sym, sym ? " " : null,
          callName(call));
      }));
    }
    for (const b of this.el.querySelectorAll("button")) b.disabled = false;
  }

  lock() {
    for (const b of this.el.querySelectorAll("button")) b.disabled = true;
  }

  hide() {
    this.show([]);
  }

  focus() {
    const first = this.el.querySelector("button");
    if (first) first.focus();
  }
}
