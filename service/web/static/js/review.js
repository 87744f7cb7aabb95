// The finished game, trick by trick: from the run's events (the table page) or from a submission's
// public record (the leaderboard); all four hands once the seed is public. A ranked game whose day
// has closed also shows each deal against the field, each deal a way into its tricks and to its
// traveller.
import { api } from "./api.js";
import { callName } from "./contract.js";
import { suitName } from "./cards.js";
import { cardsLeft, handRows } from "./dealhands.js";
import { trickFigure } from "./dialogs.js";
import { fill, h } from "./dom.js";
import { fieldDeals, fieldLegend, gameAgainstField, gameMpLine } from "./fielddeals.js";
import { num, seatName, t, teamName } from "./i18n.js";

function dealsFrom(events) {
  const deals = [];
  let deal = null;
  let plays = [];
  for (const ev of events) {
    if (ev.type === "deal_start") {
      deal = { deal: ev.deal, dealer: ev.dealer, turned: ev.turned, trump: ev.trump, tricks: [] };
      deals.push(deal);
      plays = [];
    } else if (ev.type === "contract" && deal) {
      deal.trump = ev.contract.trump; // null: no trump
      deal.noTrump = !ev.contract.trump;
    } else if (ev.type === "play") {
      plays.push({ seat: ev.seat, card: ev.card });
    } else if (ev.type === "trick" && deal) {
      deal.tricks.push({ plays, winner: ev.winner, points: ev.points, team: ev.team });
      plays = [];
    } else if (ev.type === "deal_end" && deal) {
      deal.points = ev.points;
      deal.scored = ev.scored;
    }
  }
  return deals.filter((d) => d.tricks.length);
}

// The same from a game record (docs/spec.md §9).
function dealsFromRecord(record) {
  return (record.deals || []).map((d) => ({ deal: d.index, dealer: d.dealer, turned: d.turned, trump: d.trump,
    noTrump: !d.trump, tricks: d.tricks, points: d.points, scored: d.scored }));
}

// `game`: {deals, record (all four hands, or null), note, offer (the analysis' offer, or null),
// field ({own, field} of a ranked game of a closed day, or null), day}.
function drawReview(section, game) {
  const { deals, record, field } = game;
  const steps = deals.flatMap((deal, d) => deal.tricks.map((_, k) => [d, k]));
  let at = 0;
  const where = h("p", { class: "review-where", "aria-live": "polite" });
  const stage = h("div", { class: "review-stage" });
  const prev = h("button", { type: "button", class: "btn", onclick: () => go(at - 1) }, t("previous"));
  const next = h("button", { type: "button", class: "btn", onclick: () => go(at + 1) }, t("next"));
  const nav = h("div", { class: "review-nav" }, prev, where, next);
  const go = (i) => {
    at = Math.max(0, Math.min(i, steps.length - 1));
    const [d, k] = steps[at];
    const deal = deals[d];
    const trick = deal.tricks[k];
    where.textContent = t("reviewWhere", { deal: num(deal.deal + 1), trick: num(k + 1) });
    const lines = [
      h("p", { class: "review-trump" }, t("reviewTrump", { dealer: seatName(deal.dealer),
        trump: deal.noTrump ? callName("NT").toLowerCase() : suitName(deal.trump) })),
      trickFigure(trick),
      h("p", {}, t("trickWonBy", { seat: seatName(trick.winner), n: trick.points, you: trick.winner === 0 })),
    ];
    if (k === deal.tricks.length - 1 && deal.scored) {
      const team = deal.scored[0] > 0 ? 0 : 1;
      lines.push(h("p", { class: "review-deal" }, t("dealEnds", { n: num(deal.deal + 1), us: num(deal.points[0]),
        them: num(deal.points[1]), team: teamName(team), scored: num(deal.scored[team]), side: team })));
    }
    const recordDeal = record && record.deals && record.deals[deal.deal];
    if (recordDeal) lines.push(h("h3", {}, t("handsBefore")), handRows(cardsLeft(recordDeal, k)));
    stage.replaceChildren(...lines);
    prev.disabled = at === 0;
    next.disabled = at === steps.length - 1;
    if (document.activeElement === document.body) (next.disabled ? prev : next).focus();
  };
  // a deal of the field list opens at its first trick
  const toDeal = (k) => {
    const i = steps.findIndex(([d]) => deals[d].deal === k);
    if (i < 0) return;
    go(i);
    nav.scrollIntoView({ block: "start" });
    next.focus({ preventScroll: true });
  };
  const fieldPart = field ? [
    h("h3", { id: "review-field-title" }, t("yourDealsTitle")),
    h("p", { class: "field-game" }, gameMpLine(field.own)),
    fieldLegend(),
    fieldDeals({ field: field.field, own: field.own, level: 4, actions: (k, row) => [
      row ? h("button", { type: "button", class: "btn", onclick: () => toDeal(k),
        "aria-label": t("toDealTricksOf", { n: num(k + 1) }) }, t("toDealTricks")) : null,
      h("a", { href: `/leaderboard?view=deals&day=${game.day}&deal=${k}`,
        "aria-label": t("everyResultOf", { n: num(k + 1) }) }, t("everyResult"))] }),
  ] : null;
  fill(section,
    h("h2", { id: "review-title" }, t("reviewTitle")),
    game.note ? h("p", { class: "note" }, game.note) : null,
    game.offer ? h("div", { class: "review-analysis" }, game.offer) : null,
    nav,
    stage,
    fieldPart);
  section.hidden = false;
  if (steps.length) go(0);
  section.scrollIntoView({ block: "start" });
  next.focus({ preventScroll: true });
}

// The table page's finished run.
export async function showReview(run) {
  const section = document.getElementById("review");
  let record = null;
  if (run.seed) {
    try {
      record = await api.get(`/runs/${run.run_id}/record`);
    } catch { /* still sealed or unreachable: own game only */ }
  }
  // a ranked game of a closed day: its deals against the field are public now
  const field = run.ranked && run.seed && run.submission_id ? await gameAgainstField(run.submission_id, run.date) : null;
  const { analysisOffer } = await import("./analysis.js");
  drawReview(section, { deals: dealsFrom(run.events || []), record, field, day: run.date,
    note: record ? null : t(run.ranked ? "reviewSealed" : "reviewOwn"), offer: analysisOffer(run) });
}

// A verified ranked game of a closed day, from its public record (the leaderboard).
export async function reviewSubmission(section, { subId, day }) {
  const [record, field] = await Promise.all([api.get(`/submissions/${subId}/record`), gameAgainstField(subId, day)]);
  drawReview(section, { deals: dealsFromRecord(record), record, field, day, note: null, offer: null });
}
