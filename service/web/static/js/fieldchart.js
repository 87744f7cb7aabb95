// One deal's field, drawn small: how many games took each number of card points (0 to 61) on it,
// on the same axis for every deal so that deals compare at a glance; the half from which a side
// wins the deal (31) shaded, the mean drawn, the player's own result marked. The same in words
// for a screen reader, and the figures as a table for whoever would rather read them.
import { h } from "./dom.js";
import { num, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const TOP = 61; // card points a deal hands out
const WINS = 31; // a side with 31 or more wins the deal
const HEIGHT = 40;

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

// A deal's matchpoints (0–100) as a percentage; "—" where there are none (the only result).
export function mpText(mp, digits = 1) {
  return mp === null || mp === undefined ? "—"
    : num(mp / 100, { style: "percent", maximumFractionDigits: digits });
}

export const meanText = (mean) => num(mean, { maximumFractionDigits: 1 });

function spread(counts) {
  let lo = -1;
  let hi = -1;
  counts.forEach((c, p) => {
    if (!c) return;
    if (lo < 0) lo = p;
    hi = p;
  });
  return { lo, hi };
}

// A label under the axis at card points `p`, kept inside the chart at its two ends.
function axisLabel(text, p, cls) {
  const left = (100 * (p + 0.5)) / (TOP + 1);
  const el = h("span", { class: `field-tick ${cls}`, "aria-hidden": "true" }, text);
  el.style.left = `${left}%`;
  if (left < 6) el.classList.add("at-start");
  else if (left > 94) el.classList.add("at-end");
  return el;
}

// The deal's field in one sentence (the chart's text equivalent).
export function fieldWords(field, mine = null) {
  const { lo, hi } = spread(field.counts);
  const base = t("fieldSummary", { count: field.results, lo: num(lo), hi: num(hi), mean: meanText(field.mean) });
  if (mine === null || mine === undefined) return base;
  const above = field.counts.slice(mine + 1).reduce((a, b) => a + b, 0);
  return `${base} ${t("fieldMine", { us: num(mine), count: above })}`;
}

// The deal's field as a table: games by card points, the player's own row marked.
export function figuresTable(field, mine = null) {
  const rows = [];
  field.counts.forEach((c, p) => {
    if (c) rows.push(h("tr", { class: p === mine ? "mine" : null },
      h("th", { scope: "row", class: "num" }, num(p), p === mine ? ` (${t("yours")})` : null),
      h("td", { class: "num" }, num(c))));
  });
  return h("details", { class: "field-figures" },
    h("summary", {}, t("fieldFigures")),
    h("table", {},
      h("caption", { class: "sr-only" }, t("fieldFiguresCaption")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, t("colCardPoints")),
        h("th", { scope: "col", class: "num" }, t("colGames")))),
      h("tbody", {}, rows)));
}

// `field`: {results, mean, counts[0..61]}; `mine`: the player's own card points on the deal, or null.
// `said`: false where the same words are printed beside it.
export function fieldChart(field, mine = null, { said = true } = {}) {
  const counts = field.counts;
  const max = Math.max(1, ...counts);
  const chart = svg("svg", { viewBox: `0 0 ${TOP + 1} ${HEIGHT}`, preserveAspectRatio: "none",
    class: "field-bars", "aria-hidden": "true", focusable: "false" });
  chart.append(svg("rect", { class: "field-half", x: WINS, y: 0, width: TOP + 1 - WINS, height: HEIGHT }));
  if (mine !== null && mine !== undefined) {
    chart.append(svg("rect", { class: "field-mine-col", x: mine, y: 0, width: 1, height: HEIGHT }));
  }
  counts.forEach((c, p) => {
    if (!c) return;
    const tall = Math.max(1.5, (HEIGHT * c) / max);
    chart.append(svg("rect", { class: p === mine ? "field-bar mine" : "field-bar", x: p + 0.12, y: HEIGHT - tall,
      width: 0.76, height: tall }));
  });
  if (field.results) {
    const x = field.mean + 0.5;
    chart.append(svg("line", { class: "field-mean", x1: x, x2: x, y1: 0, y2: HEIGHT, "vector-effect": "non-scaling-stroke" }));
  }
  const plot = h("div", { class: "field-plot" }, chart,
    axisLabel(num(0), 0, "field-tick-0"), axisLabel(num(WINS), WINS, "field-tick-half"),
    axisLabel(num(TOP), TOP, "field-tick-top"));
  if (mine !== null && mine !== undefined) {
    plot.append(axisLabel(t("you"), mine, "field-tick-you"));
  }
  return h("figure", { class: "field-chart" },
    h("div", said ? { class: "field-img", role: "img", "aria-label": fieldWords(field, mine) }
      : { class: "field-img", "aria-hidden": "true" }, plot));
}
