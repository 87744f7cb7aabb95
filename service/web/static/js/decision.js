// One decision of an analysis: what was on the table, each legal card's two values (from the seat,
// with hindsight) in a table, the card played and the best ones marked, and the four hands as
// they were at that moment (the game record's hands less the cards played before it).
import { cardName, cardNameInSentence, drawCard, listCards, suitName } from "./cards.js";
import { cardsLeft, handRows, seatNames } from "./dealhands.js";
import { h } from "./dom.js";
import { cat, num, seatName, t } from "./i18n.js";

export const fmt = (x) => num(x, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export function markWord(mark) {
  return cat().marks[mark] || mark;
}

// Seat 0 is "you", or the nickname of the player whose game it is (a leaderboard's game).
let player = null;
export function setPlayer(name) {
  player = name || null;
}
export const isYou = (seat) => seat === 0 && !player;

// Who played, as a sentence's subject: "you", the player's nickname or the partner's seat name.
export function who(seat) {
  if (seat === 0) return player || t("you");
  return seatName(seat);
}

// The record's deal and trick of a decision, and the cards the table held just before it.
export function moment(record, d) {
  const deal = record && record.deals && record.deals.find((x) => x.index === d.deal);
  if (!deal) return null;
  const trick = deal.tricks[d.trick];
  if (!trick) return null;
  const at = trick.plays.findIndex((p) => p.seat === d.seat);
  const before = trick.plays.slice(0, Math.max(0, at));
  return { deal, trick, before, hands: cardsLeft(deal, d.trick, before.map((p) => p.card)) };
}

function valuesTable(d) {
  const rows = Object.entries(d.legal).sort(([a, x], [b, y]) =>
    (y.seat ?? y.open) - (x.seat ?? x.open) || y.open - x.open || (a < b ? -1 : 1));
  const tags = (card) => [
    card === d.played ? t("tagPlayed") : null,
    !d.forced && d.best_seat.includes(card) ? t("tagBestSeat") : null,
    !d.forced && d.best_open.includes(card) ? t("tagBestOpen") : null,
  ].filter(Boolean);
  const seatCell = (v) => {
    if (v.seat === null || v.seat === undefined) return "—";
    if (d.exact || !v.seat_se) return `${fmt(v.seat)}`;
    return `${fmt(v.seat)} ± ${fmt(v.seat_se)}`;
  };
  return h("table", { class: "an-values" },
    h("caption", {}, t("valuesCaption")),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("colCard")),
      h("th", { scope: "col", class: "num" }, t("colSeatValue")),
      h("th", { scope: "col", class: "num" }, t("colOpenValue")))),
    h("tbody", {}, rows.map(([card, v]) => {
      const face = drawCard(card);
      face.classList.add("tiny");
      face.setAttribute("aria-hidden", "true");
      face.removeAttribute("role");
      return h("tr", { class: [card === d.played ? "played" : "", d.best_seat.includes(card) && !d.forced ? "best" : ""]
        .filter(Boolean).join(" ") || null, "data-card": card },
      h("th", { scope: "row" }, h("span", { class: "an-cardcell" }, face, h("span", {}, cardName(card))),
        tags(card).length ? [h("span", { class: "sr-only" }, ", "), h("span", { class: "an-tags" }, tags(card).join(" · "))] : null),
      h("td", { class: "num" }, seatCell(v)),
      h("td", { class: "num" }, num(v.open)));
    })));
}

// The sentence of a decision's marks, also what is announced when it is chosen.
export function verdict(d) {
  if (d.forced) return t("forcedNote");
  const seat = d.mark === "best" && d.lost_seat > 0
    ? t("markSeatWithin", { mark: markWord(d.mark), lost: fmt(d.lost_seat) })
    // an exact value (every deal counted) has no sampling error to show
    : t("markSeat", { mark: markWord(d.mark), lost: fmt(d.lost_seat), best: d.mark === "best",
      se: d.exact || !d.lost_seat_se ? null : fmt(d.lost_seat_se) });
  const open = t("markOpen", { mark: markWord(d.hindsight), lost: num(d.lost_open), best: d.hindsight === "best" });
  const better = d.mark !== "best" ? ` ${t("betterSeat", { cards: listCards(d.best_seat) })}` : "";
  return `${seat}${better} ${open}`;
}

export function decisionTitle(d) {
  return t("decisionTitle", { deal: num(d.deal + 1), trick: num(d.trick + 1), who: who(d.seat),
    card: cardNameInSentence(d.played), you: isYou(d.seat) });
}

export function decisionPanel(d, record) {
  const at = moment(record, d);
  const parts = [
    h("h3", { class: "an-detail-title" }, decisionTitle(d)),
    h("p", { class: `an-verdict mark-${d.mark}` }, h("strong", { class: "an-mark-word" }, markWord(d.mark)), " — ", verdict(d)),
  ];
  if (at) {
    parts.push(h("p", { class: "an-context" }, t("trumpsAre", { trump: suitName(at.deal.trump) }), " · ",
      at.before.length ? t("onTable", { cards: at.before.map((p) => t("seatCard", { seat: seatName(p.seat), card: cardName(p.card) })).join(", ") })
        : t("leads", { who: who(d.seat), you: isYou(d.seat) })));
  }
  parts.push(h("div", { class: "an-table-wrap" }, valuesTable(d)));
  if (!d.forced && !d.exact && d.worlds) parts.push(h("p", { class: "note" }, t("sampledNote", { n: num(d.worlds) })));
  if (!d.forced && d.exact) parts.push(h("p", { class: "note" }, t("exactNote")));
  if (at) {
    parts.push(h("h4", {}, t("handsAt")),
      handRows(at.hands, { names: seatNames(player), mover: d.seat, played: d.played, className: "an-hands" }));
  }
  return parts;
}
