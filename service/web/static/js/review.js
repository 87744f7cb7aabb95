// The finished game, trick by trick, from the run's events; all four hands once the seed is public.
import { api } from "./api.js";
import { callName } from "./contract.js";
import { cardName, drawCard, suitName } from "./cards.js";
import { trickFigure } from "./dialogs.js";
import { fill, h } from "./dom.js";
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

// The cards each seat still holds when trick `index` of `deal` starts.
function handsAt(recordDeal, deal, index) {
  const gone = new Set(deal.tricks.slice(0, index).flatMap((tr) => tr.plays.map((p) => p.card)));
  return [0, 1, 2, 3].map((seat) => (recordDeal.hands[String(seat)] || []).filter((c) => !gone.has(c)));
}

function handsFigure(hands) {
  const wrap = h("div", { class: "review-hands" });
  hands.forEach((cards, seat) => {
    const row = h("div", { class: "review-hand" }, h("span", { class: "who" }, seatName(seat)));
    const list = h("span", { class: "mini-cards", role: "list", "aria-label": t("handOf", { seat: seatName(seat) }) });
    for (const card of cards) {
      const face = drawCard(card);
      face.classList.add("tiny");
      face.setAttribute("aria-label", cardName(card));
      list.append(h("span", { role: "listitem" }, face));
    }
    row.append(list);
    wrap.append(row);
  });
  return wrap;
}

export async function showReview(run) {
  const section = document.getElementById("review");
  const deals = dealsFrom(run.events || []);
  let record = null;
  if (run.seed) {
    try {
      record = await api.get(`/runs/${run.run_id}/record`);
    } catch { /* still sealed or unreachable: own game only */ }
  }
  const steps = deals.flatMap((deal, d) => deal.tricks.map((_, k) => [d, k]));
  let at = 0;
  const where = h("p", { class: "review-where", "aria-live": "polite" });
  const stage = h("div", { class: "review-stage" });
  const prev = h("button", { type: "button", class: "btn", onclick: () => go(at - 1) }, t("previous"));
  const next = h("button", { type: "button", class: "btn", onclick: () => go(at + 1) }, t("next"));
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
    if (recordDeal) lines.push(h("h3", {}, t("handsBefore")), handsFigure(handsAt(recordDeal, deal, k)));
    stage.replaceChildren(...lines);
    prev.disabled = at === 0;
    next.disabled = at === steps.length - 1;
    if (document.activeElement === document.body) (next.disabled ? prev : next).focus();
  };
  const { analysisOffer } = await import("./analysis.js");
  fill(section,
    h("h2", { id: "review-title" }, t("reviewTitle")),
    record ? null : h("p", { class: "note" }, t(run.ranked ? "reviewSealed" : "reviewOwn")),
    h("div", { class: "review-analysis" }, analysisOffer(run)),
    h("div", { class: "review-nav" }, prev, where, next),
    stage);
  section.hidden = false;
  if (steps.length) go(0);
  section.scrollIntoView({ block: "start" });
  next.focus({ preventScroll: true });
}
