// A player's rating day by day as an SVG line with its deviation as a band: an image with a
// summary for a screen reader (role="img" and its label), the figures themselves in the table
// beside it. Scaled to its box: drawn once, any screen width.
import { longDate, num, t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const W = 600;
const H = 220;
const PAD = { left: 44, right: 8, top: 10, bottom: 24 };

function el(tag, attrs = {}) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export function ratingPlot(history) {
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-plot", role: "img", focusable: "false" });
  if (!history.length) return svg;
  const lows = history.map((p) => p.value - p.deviation);
  const highs = history.map((p) => p.value + p.deviation);
  const lo = Math.floor(Math.min(...lows) / 50) * 50;
  const hi = Math.ceil(Math.max(...highs) / 50) * 50 || lo + 50;
  const x = (i) => PAD.left + (history.length === 1 ? 0.5 : i / (history.length - 1)) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo || 1)) * (H - PAD.top - PAD.bottom);
  const first = history[0];
  const last = history[history.length - 1];
  const best = history.reduce((a, b) => (b.value > a.value ? b : a));
  svg.setAttribute("aria-label", t("plotSummary", {
    count: history.length, first: longDate(first.date), last: longDate(last.date),
    from: num(first.value), to: num(last.value), best: num(best.value), bestDate: longDate(best.date) }));
  for (const v of [lo, (lo + hi) / 2, hi]) {
    svg.append(el("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }));
    const label = el("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" });
    label.textContent = num(Math.round(v));
    svg.append(label);
  }
  const band = history.map((p, i) => `${x(i)},${y(p.value + p.deviation)}`)
    .concat(history.map((p, i) => `${x(i)},${y(p.value - p.deviation)}`).reverse());
  svg.append(el("polygon", { points: band.join(" "), class: "band" }));
  svg.append(el("polyline", { points: history.map((p, i) => `${x(i)},${y(p.value)}`).join(" "), class: "line" }));
  history.forEach((p, i) => svg.append(el("circle", { cx: x(i), cy: y(p.value), r: 3, class: "dot" })));
  for (const [i, anchor] of [[0, "start"], [history.length - 1, "end"]]) {
    const label = el("text", { x: x(i), y: H - 6, "text-anchor": anchor, class: "axis" });
    label.textContent = longDate(history[i].date);
    svg.append(label);
    if (history.length === 1) break;
  }
  return svg;
}
