// A day's deals against the field, deal by deal: how many games played each, their mean card
// points and a small histogram; for a game, its own card points marked on each, with its
// matchpoints (the share of the other results it beat, a tie counting half) and the game's.
// Shared by the end of a game, the review and the leaderboard's Deals view.
import { api } from "./api.js";
import { h, needStyles } from "./dom.js";
import { fieldChart, figuresTable, meanText, mpText } from "./fieldchart.js";
import { num, t } from "./i18n.js";

// A game's deals (GET /submissions/{id}/deals) and its day's field, or null where refused; with
// the charts' stylesheet, which a page that shows no deals never loads.
export async function gameAgainstField(subId, day) {
  const [own, field] = await Promise.all([
    api.get(`/submissions/${subId}/deals`).catch(() => null),
    api.get(`/leaderboards/days/${day}/deals`).catch(() => null),
    needStyles("/static/css/deals.css"),
  ]);
  return own && field ? { own, field } : null;
}

// The reader's result on a deal, under its chart: card points, and against how many others.
function ownLine(row) {
  const points = h("strong", {}, t("yourPoints", { us: num(row.us), count: row.us }));
  if (row.mp === null) return [points, " · ", t("aloneOnDeal")];
  return [points, " · ", t("versusOthers", { beaten: row.beaten, tied: row.tied, others: row.results - 1 })];
}

// A deal's matchpoints, large beside its title: what one looks at first.
function mpBadge(row) {
  if (!row || row.mp === null) return null;
  return h("span", { class: "field-mp" }, h("span", { class: "sr-only" }, `${t("colMp")}: `),
    h("span", { class: "field-mp-value" }, mpText(row.mp)));
}

// The game's matchpoints in one line, or why there are none.
export function gameMpLine(own) {
  if (own.mp === null) return t("gameMpNone");
  const scored = own.deals.filter((d) => d.mp !== null).length;
  return t("gameMp", { mp: mpText(own.mp, 2), count: scored });
}

// `field`: GET /leaderboards/days/{date}/deals; `own`: GET /submissions/{id}/deals or null;
// `actions(deal)`: the buttons and links of a deal (its traveller, a jump to it), if any;
// `level`: the heading level of each deal.
export function fieldDeals({ field, own = null, actions = null, level = 3 }) {
  const byDeal = new Map(field.deals.map((d) => [d.deal, d]));
  const mine = new Map((own ? own.deals : []).map((d) => [d.deal, d]));
  const deals = [...new Set([...byDeal.keys(), ...mine.keys()])].sort((a, b) => a - b);
  const list = h("ol", { class: "field-deals" });
  for (const k of deals) {
    const row = mine.get(k) || null;
    // a game the field does not count (held) still shows where it stands: the field as is
    const deal = byDeal.get(k) || { deal: k, results: 0, mean: row ? row.us : 0, counts: Array(62).fill(0) };
    // the title's line has one height in every card: the charts of a row line up
    list.append(h("li", { class: `field-deal${row ? "" : " not-played"}`, "data-deal": k },
      h("div", { class: "field-head" },
        h(`h${level}`, { class: "field-deal-title" }, t("dealN", { n: num(k + 1) })), mpBadge(row)),
      fieldChart(deal, row ? row.us : null),
      own ? h("p", { class: "field-you" }, row ? ownLine(row) : t("dealNotReached")) : null,
      h("p", { class: "field-facts" }, t("dealField", { count: deal.results, mean: meanText(deal.mean) })),
      deal.results ? figuresTable(deal, row ? row.us : null) : null,
      actions ? h("p", { class: "field-actions" }, actions(k, row)) : null));
  }
  return list;
}

// The legend under a day's deals: what the chart shows, in one line.
export function fieldLegend() {
  return h("p", { class: "note field-legend" }, t("fieldLegend"));
}
