// The player's hand: one toolbar, roving tabindex, arrows/Home/End, Enter or Space plays,
// typing a card's notation jumps to it, tap (or tap-to-choose then tap-again) with a pointer.
import { cardName, drawCard, listCards, readTyped } from "./cards.js";
import { t } from "./i18n.js";
import { settings } from "./settings.js";

const TYPE_RESET_MS = 1200;

export class Hand {
  constructor(el, reasonsEl, hintEl, { onPlay, onRefuse }) {
    this.el = el;
    this.reasonsEl = reasonsEl;
    this.hintEl = hintEl;
    this.onPlay = onPlay;
    this.onRefuse = onRefuse;
    this.buttons = new Map();
    this.reasons = {};
    this.myTurn = false;
    this.focusIndex = 0;
    this.typed = "";
    this.typedAt = 0;
    el.addEventListener("click", (e) => this.clicked(e));
    el.addEventListener("keydown", (e) => this.key(e));
    el.addEventListener("focusin", (e) => this.focused(e.target));
    el.addEventListener("focusout", () => { this.hintEl.textContent = ""; });
  }

  get cards() {
    return [...this.buttons.keys()];
  }

  // Legality is the server's: legal and unplayable come from the run's view as they are.
  render(cards, legal = [], unplayable = {}, myTurn = false) {
    const hadFocus = this.el.contains(document.activeElement);
    const focusedCard = hadFocus ? document.activeElement.dataset.card : null;
    for (const [card, button] of this.buttons) {
      if (!cards.includes(card)) {
        button.remove();
        this.buttons.delete(card);
      }
    }
    cards.forEach((card, i) => {
      let button = this.buttons.get(card);
      if (!button) {
        button = drawCard(card, document.createElement("button"));
        button.type = "button";
        button.setAttribute("aria-label", cardName(card));
        this.buttons.set(card, button);
      }
      if (this.el.children[i] !== button) this.el.insertBefore(button, this.el.children[i] || null);
    });
    this.myTurn = myTurn;
    this.reasons = {};
    this.reasonsEl.textContent = "";
    for (const [card, button] of this.buttons) {
      const ok = myTurn && legal.includes(card);
      button.setAttribute("aria-disabled", ok ? "false" : "true");
      button.classList.toggle("legal", ok);
      button.classList.toggle("illegal", myTurn && !ok);
      button.classList.remove("chosen");
      button.removeAttribute("aria-describedby");
      const code = myTurn && !ok ? unplayable[card] : null;
      if (code) {
        const text = t(`why_${code}`, { cards: listCards(legal) });
        const why = document.createElement("span");
        why.id = `why-${card}`;
        why.textContent = text;
        this.reasonsEl.append(why);
        button.setAttribute("aria-describedby", why.id);
        this.reasons[card] = text;
      }
    }
    const order = this.cards;
    let index = focusedCard ? order.indexOf(focusedCard) : -1;
    if (index < 0) index = Math.min(this.focusIndex, order.length - 1);
    if (myTurn && !hadFocus && !legal.includes(order[index])) {
      index = Math.max(0, order.findIndex((c) => legal.includes(c)));
    }
    this.setFocusIndex(index, hadFocus);
    this.hintEl.textContent = hadFocus ? this.reasons[order[this.focusIndex]] || "" : "";
  }

  setFocusIndex(index, moveFocus) {
    const buttons = [...this.buttons.values()];
    if (!buttons.length) return;
    this.focusIndex = Math.max(0, Math.min(index, buttons.length - 1));
    buttons.forEach((b, i) => { b.tabIndex = i === this.focusIndex ? 0 : -1; });
    if (moveFocus) buttons[this.focusIndex].focus();
  }

  lock() {
    this.myTurn = false;
    this.hintEl.textContent = "";
    for (const button of this.buttons.values()) {
      button.setAttribute("aria-disabled", "true");
      button.classList.remove("legal", "illegal", "chosen");
    }
  }

  remove(card) {
    const button = this.buttons.get(card);
    if (!button) return;
    const hadFocus = button === document.activeElement;
    const index = this.cards.indexOf(card);
    button.remove();
    this.buttons.delete(card);
    this.setFocusIndex(Math.min(index, this.buttons.size - 1), hadFocus);
  }

  focus() {
    this.setFocusIndex(this.focusIndex, true);
  }

  focused(target) {
    const card = target.dataset && target.dataset.card;
    if (!card) return;
    this.focusIndex = this.cards.indexOf(card);
    this.setFocusIndex(this.focusIndex, false);
    this.hintEl.textContent = this.reasons[card] || "";
  }

  clicked(e) {
    const button = e.target.closest("button[data-card]");
    if (!button) return;
    const card = button.dataset.card;
    this.focusIndex = this.cards.indexOf(card);
    this.setFocusIndex(this.focusIndex, false);
    if (button.getAttribute("aria-disabled") === "true") {
      const why = this.myTurn ? this.reasons[card] || t("cannotPlay") : t("notYourTurn");
      this.hintEl.textContent = why; // under the hand, where the finger is: the one place it is shown
      this.onRefuse(card, why);
      return;
    }
    // e.detail is 0 for Enter/Space: the keyboard always plays at once.
    if (settings.tapSelect && e.detail > 0 && !button.classList.contains("chosen")) {
      for (const b of this.buttons.values()) b.classList.remove("chosen");
      button.classList.add("chosen");
      this.hintEl.textContent = t("tapAgain");
      return;
    }
    this.onPlay(card);
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const n = this.buttons.size;
    const moves = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
    if (e.key in moves) {
      this.setFocusIndex((this.focusIndex + moves[e.key] + n) % n, true);
    } else if (e.key === "Home") {
      this.setFocusIndex(0, true);
    } else if (e.key === "End") {
      this.setFocusIndex(n - 1, true);
    } else if (e.key.length === 1 && /[0-9a-z]/i.test(e.key)) {
      if (!this.typeKey(e.key)) return; // not part of a card: let the page's shortcuts see it
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  }

  typeKey(key) {
    const now = performance.now();
    let buffer = (now - this.typedAt < TYPE_RESET_MS ? this.typed : "") + key;
    this.typedAt = now;
    const cards = this.cards;
    let found = readTyped(buffer, cards);
    if (!found && buffer !== key) {
      buffer = key;
      found = readTyped(key, cards);
    }
    this.typed = found && !found.card && !found.none ? buffer : "";
    if (!found) return false;
    const index = found.card ? cards.indexOf(found.card) : cards.findIndex((c) => c[0] === found.rank);
    if (index >= 0) this.setFocusIndex(index, true);
    return true;
  }
}
