// The four hands of a deal at one moment, from a public game record (the seed is published: no
// hidden card is ever drawn before it): as rows of small cards (the review, the analysis), or as
// a bridge diagram's suit lines around the table (the deal movie).
import { RANKS, SYMBOL, cardName, drawCard, rankLabel, sortHand, suitName } from "./cards.js";
import { h } from "./dom.js";
import { seatName, t } from "./i18n.js";

// The cards each seat still holds once `tricks` tricks of `deal` (a record's deal: its `hands`
// and `tricks`) are played, and the cards of `also` too.
export function cardsLeft(deal, tricks, also = []) {
  const gone = new Set(deal.tricks.slice(0, tricks).flatMap((tr) => tr.plays.map((p) => p.card)).concat(also));
  return [0, 1, 2, 3].map((seat) => (deal.hands[String(seat)] || []).filter((c) => !gone.has(c)));
}

// Who sits where, as said on a hand: "You", or the player's nickname in another's game.
export function seatNames(player = null) {
  return [0, 1, 2, 3].map((seat) => (seat === 0 && player ? player : seatName(seat)));
}

// Rows of small cards, one a seat. `mover`: the seat about to play (marked); `played`: its card.
export function handRows(hands, { names = seatNames(), mover = null, played = null, className = "" } = {}) {
  const wrap = h("div", { class: `review-hands${className ? ` ${className}` : ""}` });
  hands.forEach((cards, seat) => {
    const list = h("span", { class: "mini-cards", role: "list", "aria-label": t("handOf", { seat: names[seat] }) });
    for (const card of sortHand(cards)) {
      const face = drawCard(card);
      face.classList.add("tiny");
      let label = cardName(card);
      if (seat === mover && card === played) {
        face.classList.add("an-played");
        label += ` (${t("tagPlayed")})`;
      }
      face.setAttribute("aria-label", label);
      list.append(h("span", { role: "listitem" }, face));
    }
    if (!cards.length) list.append(h("span", { role: "listitem", class: "note" }, "—"));
    wrap.append(h("div", { class: `review-hand${seat === mover ? " an-mover" : ""}` },
      h("span", { class: "who" }, names[seat]), list));
  });
  return wrap;
}

// Spades, hearts, clubs, diamonds: black and red alternate, as a bridge diagram prints them.
const LINE_SUITS = ["S", "H", "C", "D"];
const HIGH_FIRST = [...RANKS].reverse(); // the ten (the manille) first, then the ace…

// One hand as four suit lines ("♠ 10 A 9"), each read out as words ("spades: ten, ace, nine").
export function handLines(cards, name, { trump = null } = {}) {
  const list = h("ul", { class: "hand-lines", "aria-label": t("handOf", { seat: name }) });
  for (const suit of LINE_SUITS) {
    const held = HIGH_FIRST.map((r) => r + suit).filter((c) => cards.includes(c));
    const words = held.length ? held.map((c) => cardName(c)).join(", ") : t("voidSuit");
    list.append(h("li", { class: `suit-sym suit-${suit}${suit === trump ? " trump" : ""}` },
      h("span", { class: "sr-only" }, `${suitName(suit)}${suit === trump ? ` (${t("trumpShort")})` : ""}: ${words}`),
      h("span", { "aria-hidden": "true" }, `${SYMBOL[suit]} ${held.length ? held.map(rankLabel).join(" ") : "—"}`)));
  }
  return list;
}

// The cards of a trick where their seats sit (you at the bottom, North at the top), the winner's
// marked; in reading order for a screen reader: the leader first.
export function trickCross(trick, names) {
  const list = h("ol", { class: "trick-cross", "aria-label": t("trickCards") });
  for (const play of trick.plays) {
    const won = play.seat === trick.winner;
    const face = drawCard(play.card);
    face.classList.add("tiny");
    face.setAttribute("aria-hidden", "true");
    face.removeAttribute("role");
    list.append(h("li", { class: `at-seat-${play.seat}${won ? " winner" : ""}` },
      face, h("span", { class: "sr-only" }, `${t("seatCard", { seat: names[play.seat], card: cardName(play.card) })}${
        won ? ` (${t("takesIt")})` : ""}`)));
  }
  return list;
}

// The card points each side has taken once `tricks` tricks of `deal` are played: [seat 0's side, the other].
export function pointsAfter(deal, tricks) {
  const out = [0, 0];
  for (const tr of deal.tricks.slice(0, tricks)) out[tr.winner % 2] += tr.points;
  return out;
}
