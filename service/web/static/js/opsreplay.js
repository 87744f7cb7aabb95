// The ops replay viewer: a game record stepped through trick by trick (Previous/Next, ← →,
// Home/End), with the four hands as they stood at the start of the trick, the trick's plays in
// order, its winner and points, and for each of the player's (seat 0) plays whether it was
// forced or a free choice among the legal cards.  A play's optional "oracle" (the card an
// oracle would have chosen) is shown beside the player's card when present; absent, nothing.
import { h } from "./dom.js";

const SYMBOL = { C: "\u2663\uFE0E", D: "\u2666\uFE0E", H: "\u2665\uFE0E", S: "\u2660\uFE0E" };
const RANK_TEXT = { T: "10" };
const RANK_NAME = { 7: "seven", 8: "eight", 9: "nine", J: "jack", Q: "queen", K: "king", A: "ace", T: "ten" };
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
export const SEAT_NAMES = ["Player (seat 0)", "Opponent (seat 1)", "Partner (seat 2)", "Opponent (seat 3)"];

const isCard = (c) => typeof c === "string" && c.length === 2 && c[0] in RANK_NAME && c[1] in SUIT_NAME;

export function cardName(card) {
  return isCard(card) ? `${RANK_NAME[card[0]]} of ${SUIT_NAME[card[1]]}` : String(card);
}

// A card as text: "10♥" drawn, "ten of hearts" read; data-card carries the notation.
export function cardEl(card) {
  if (!isCard(card)) return h("span", { class: "c" }, String(card ?? "?"));
  return h("span", { class: `c suit-${card[1]}`, "data-card": card },
    h("span", { "aria-hidden": "true" }, `${RANK_TEXT[card[0]] || card[0]}${SYMBOL[card[1]]}`),
    h("span", { class: "sr-only" }, cardName(card)));
}

export function cardList(cards, extra = () => null) {
  return h("ul", { class: "cards" }, (cards || []).map((c) => h("li", { class: extra(c) }, cardEl(c))));
}

const seatName = (s) => SEAT_NAMES[s] || `Seat ${s}`;

// Every trick of the game, in order, with the hands as they stood at its start.
function steps(record) {
  const out = [];
  for (const [di, deal] of (record && Array.isArray(record.deals) ? record.deals : []).entries()) {
    const played = new Set();
    const tricks = Array.isArray(deal.tricks) ? deal.tricks : [];
    for (const [ti, trick] of tricks.entries()) {
      const hands = {};
      for (const seat of [0, 1, 2, 3]) {
        hands[seat] = ((deal.hands && deal.hands[String(seat)]) || []).filter((c) => !played.has(c));
      }
      out.push({ deal, di, trick, ti, tricks: tricks.length, hands });
      for (const p of trick.plays || []) played.add(p.card);
    }
  }
  return out;
}

function choice(play) {
  if (play.seat !== 0) return null;
  const parts = [];
  if (Array.isArray(play.legal)) {
    if (play.legal.length <= 1) parts.push(h("span", { class: "tag forced" }, "forced"));
    else {
      parts.push(h("span", { class: "tag free" }, "free choice"), " among ",
        cardList(play.legal, (c) => (c === play.card ? "chosen" : null)));
    }
  }
  if (isCard(play.oracle) || (typeof play.oracle === "string" && play.oracle)) {
    const same = play.oracle === play.card;
    parts.push(h("span", { class: `oracle ${same ? "same" : "differs"}` }, "oracle: ", cardEl(play.oracle),
      same ? " (same)" : " (differs)"));
  }
  const a = play.analysis;
  if (a && typeof a === "object") {
    parts.push(h("span", { class: `mark mark-${a.mark}` }, ` ${a.mark}`),
      ` (from the seat −${a.lost_seat}; with hindsight ${a.hindsight}, −${a.lost_open}`,
      a.gain ? `; hindsight gain ${a.gain > 0 ? "+" : ""}${a.gain}` : "", ")");
  }
  return parts.length ? h("div", { class: "choice" }, parts) : null;
}

export function replayViewer(record) {
  const all = steps(record);
  const root = h("section", { class: "replay", "aria-labelledby": "replay-title" });
  root.append(h("h3", { id: "replay-title" }, "Replay"));
  if (!all.length) {
    root.append(h("p", { class: "note" }, "No game record to replay."));
    return root;
  }
  let at = 0;
  const prev = h("button", { type: "button", class: "btn", "aria-controls": "replay-view" }, "Previous trick");
  const next = h("button", { type: "button", class: "btn", "aria-controls": "replay-view" }, "Next trick");
  const pos = h("p", { id: "replay-pos", class: "replay-pos", role: "status", "aria-live": "polite" });
  const view = h("div", { id: "replay-view", class: "replay-view", tabindex: "0", role: "group",
    "aria-label": "Trick view (← and → step through the tricks)" });

  function render() {
    const s = all[at];
    const d = s.deal;
    // deals and tricks count from 0, as the API and the game record number them
    pos.textContent = `Deal ${s.di}, trick ${s.ti} of 0–${s.tricks - 1} (step ${at + 1} of ${all.length})`;
    prev.disabled = at === 0;
    next.disabled = at === all.length - 1;
    const now = new Set((s.trick.plays || []).map((p) => p.card));
    const hands = h("div", { class: "hands" }, [0, 1, 2, 3].map((seat) => h("div", { class: `hand seat-${seat}` },
      h("h4", {}, seatName(seat)),
      s.hands[seat].length ? cardList(s.hands[seat], (c) => (now.has(c) ? "now" : null))
        : h("p", { class: "note" }, "no cards"))));
    const plays = h("ol", { class: "plays" }, (s.trick.plays || []).map((p) => h("li", { class: p.seat === 0 ? "mine" : null },
      h("span", { class: "who" }, seatName(p.seat)), " played ", cardEl(p.card), choice(p))));
    const won = s.trick.winner !== undefined && s.trick.winner !== null
      ? h("p", { class: "won" }, `Won by ${seatName(s.trick.winner)}`,
        s.trick.points !== undefined ? `, ${s.trick.points} point${s.trick.points === 1 ? "" : "s"}` : "")
      : h("p", { class: "note" }, "Trick not complete.");
    const about = h("p", { class: "deal-info" },
      d.dealer !== undefined ? `Dealer: ${seatName(d.dealer)}. ` : "",
      d.trump ? `Trump: ${SUIT_NAME[d.trump] ? `${SYMBOL[d.trump]} ${SUIT_NAME[d.trump]}` : d.trump}. ` : "",
      d.turned ? ["Turned card: ", cardEl(d.turned), ". "] : "",
      s.trick.leader !== undefined ? `Led by ${seatName(s.trick.leader)}.` : "");
    const extra = [];
    if (s.ti === s.tricks - 1 && Array.isArray(d.points)) {
      extra.push(h("p", { class: "deal-end" }, `End of deal ${s.di}: points ${d.points.join(" – ")}`,
        Array.isArray(d.totals) ? `; game totals ${d.totals.join(" – ")}` : ""));
    }
    view.replaceChildren(about, h("h4", {}, "Hands at the start of the trick"), hands,
      h("h4", {}, "The trick"), plays, won, ...extra);
  }
  const go = (to) => {
    const n = Math.max(0, Math.min(all.length - 1, to));
    if (n !== at) { at = n; render(); }
  };
  prev.addEventListener("click", () => go(at - 1));
  next.addEventListener("click", () => go(at + 1));
  root.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: all.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });
  root.append(h("p", { class: "note" }, "Step with the buttons, or with ← → (Home, End) while the viewer has focus."),
    h("div", { class: "replay-nav" }, prev, pos, next), view);
  render();
  return root;
}
