// Card notation (docs/spec.md §3.1: rank then suit, "TH" = ten of hearts) and how a card is drawn.
import { cat } from "./i18n.js";

export const SUITS = ["C", "D", "H", "S"];
export const RANKS = ["7", "8", "9", "J", "Q", "K", "A", "T"];
// U+FE0E asks for the text glyph: some systems would otherwise draw emoji suits.
export const SYMBOL = { C: "\u2663\uFE0E", D: "\u2666\uFE0E", H: "\u2665\uFE0E", S: "\u2660\uFE0E" };
export const POINTS = { T: 5, A: 4, K: 3, Q: 2, J: 1, 9: 0, 8: 0, 7: 0 };

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];

// A hand as a player holds it and as the table shows it (the server's order): by suit, clubs to
// spades, then by rank, the seven to the ten.
export const sortHand = (cards) => [...cards].sort((a, b) =>
  SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b)) || RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)));

export function rankLabel(card) {
  return cat().rankLetters[rankOf(card)];
}

export function cardName(card) {
  const c = cat();
  return c.cardName(c.rankNames[rankOf(card)], c.suitNames[suitOf(card)], rankOf(card));
}

// The name with its article where the language needs one in a sentence ("le roi de pique").
export function cardNameInSentence(card) {
  const c = cat();
  return c.cardInSentence ? c.cardInSentence(cardName(card), rankOf(card)) : cardName(card);
}

export function listCards(cards) {
  return new Intl.ListFormat(document.documentElement.lang || "fr", { type: "conjunction" })
    .format(cards.map(cardNameInSentence));
}

export function suitName(suit) {
  return cat().suitNames[suit];
}

// The face of a card; interactive wrappers (hand buttons) pass their own element.
export function drawCard(card, el = document.createElement("span")) {
  el.classList.add("card", `suit-${suitOf(card)}`);
  el.dataset.card = card;
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.setAttribute("aria-hidden", "true");
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = rankLabel(card);
  const small = document.createElement("span");
  small.className = "pip-small";
  small.textContent = SYMBOL[suitOf(card)];
  corner.append(rank, small);
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  pip.textContent = SYMBOL[suitOf(card)];
  el.append(corner, pip);
  if (el.tagName === "SPAN") {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", cardName(card));
  }
  return el;
}

export function drawBack() {
  const el = document.createElement("span");
  el.className = "card back";
  el.setAttribute("aria-hidden", "true");
  return el;
}

// What a typed rank or suit letter means: canonical letters always ("th", "10h"),
// plus the page language's rank letters (FR "v" valet, NL "b" boer...).
function rankKeys() {
  const keys = { 7: "7", 8: "8", 9: "9", t: "T", 10: "T", j: "J", q: "Q", k: "K", a: "A" };
  const local = cat().rankLetters;
  for (const r of RANKS) keys[local[r].toLowerCase()] = r;
  return keys;
}

// Reads a typed buffer: {card} when it names a whole card of the hand, {rank} when it names
// only a rank (jump to the first card of that rank), null when it means nothing.
export function readTyped(buffer, hand) {
  const text = buffer.toLowerCase();
  const ranks = rankKeys();
  for (const len of [2, 1]) {
    const rank = ranks[text.slice(0, len)];
    if (!rank || text.length < len) continue;
    const rest = text.slice(len);
    if (rest === "") {
      if (len === 1 && text === "1") return { pending: true };
      return { rank };
    }
    const suit = rest.length === 1 ? rest.toUpperCase() : "";
    if (SUITS.includes(suit)) return hand.includes(rank + suit) ? { card: rank + suit } : { none: true };
  }
  if (text === "1") return { pending: true };
  return null;
}
