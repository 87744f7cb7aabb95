// Points lost, deal by deal, you and your partner: an SVG bar chart, described in words, with the
// same figures as a table. Each seat has two bars side by side: solid, from the seat; a dashed
// outline, with hindsight. Each bar has its own column and its value just above it, so no value
// can overlap another value or a bar, however the values fall.
import { h } from "./dom.js";
import { num, seatName, t } from "./i18n.js";
import { fmt, who } from "./decision.js";

const NS = "http://www.w3.org/2000/svg";
const BAR = 14; // wide enough for a two-digit value (a deal has 60 card points)
const PAIR = 2; // between a seat's two bars
const SEATS_GAP = 6; // between the two seats of a deal
const DEAL_GAP = 16;
const DEAL_WIDTH = 4 * BAR + 2 * PAIR + SEATS_GAP;
const LEFT = 30;
const HEIGHT = 120;
const TOP = 22; // room for the tallest bar's value
const BASE = TOP + HEIGHT;

function svg(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

// One bar and its value just above it.
function bar(plot, x, value, y, kind, seat) {
  plot.append(svg("rect", { x, width: BAR, y: y(value), height: BASE - y(value), class: `${kind} seat-${seat}` }));
  plot.append(svg("text", { x: x + BAR / 2, y: y(value) - 4, class: `val val-${kind}`, "text-anchor": "middle" },
    num(value, { maximumFractionDigits: 0 })));
}

// A phone keeps the values readable: the plot shrinks to 80 % of its size at most, and beyond
// that its box scrolls sideways (and takes the focus then, so that keys scroll it too).
function scrollBox(plot, width) {
  plot.style.minWidth = `${Math.round(width * 0.8)}px`;
  const box = h("div", { class: "an-plot-box", role: "group", "aria-labelledby": "an-plot-title" }, plot);
  new ResizeObserver(() => {
    if (box.scrollWidth > box.clientWidth + 1) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }).observe(box);
  return box;
}

export function lossPlot(summary, seats) {
  const deals = summary[String(seats[0])].by_deal.map((x) => x.deal);
  const by = Object.fromEntries(seats.map((s) => [s, Object.fromEntries(summary[String(s)].by_deal.map((x) => [x.deal, x]))]));
  const top = Math.max(1, ...seats.flatMap((s) => deals.flatMap((k) => [by[s][k].lost_seat, by[s][k].lost_open])));
  const y = (v) => BASE - (HEIGHT * Math.max(0, v)) / top;
  const width = LEFT + deals.length * (DEAL_WIDTH + DEAL_GAP);
  const plot = svg("svg", { viewBox: `0 0 ${width} ${BASE + 22}`, width, height: BASE + 22,
    class: "an-plot", role: "img",
    "aria-labelledby": "an-plot-title", "aria-describedby": "an-plot-desc", focusable: "false" });
  plot.append(svg("line", { x1: LEFT - 6, x2: width, y1: BASE, y2: BASE, class: "axis" }));
  plot.append(svg("text", { x: LEFT - 10, y: TOP + 4, class: "tick", "text-anchor": "end" }, num(top, { maximumFractionDigits: 0 })));
  plot.append(svg("text", { x: LEFT - 10, y: BASE, class: "tick", "text-anchor": "end" }, "0"));
  deals.forEach((k, i) => {
    const x0 = LEFT + i * (DEAL_WIDTH + DEAL_GAP);
    seats.forEach((s, j) => {
      const x = x0 + j * (2 * BAR + PAIR + SEATS_GAP);
      bar(plot, x, by[s][k].lost_seat, y, "seat", s);
      bar(plot, x + BAR + PAIR, by[s][k].lost_open, y, "open", s);
    });
    plot.append(svg("text", { x: x0 + DEAL_WIDTH / 2, y: BASE + 16, class: "tick", "text-anchor": "middle" }, num(k + 1)));
  });
  const words = deals.map((k) => t("plotDealWords", { n: num(k + 1),
    who: who(0), you: fmt(by[seats[0]][k].lost_seat), partner: fmt(by[seats[1]][k].lost_seat),
    youOpen: num(by[seats[0]][k].lost_open), partnerOpen: num(by[seats[1]][k].lost_open), seat: seatName(seats[1]) }));
  const table = h("table", { class: "an-deals" },
    h("caption", {}, t("plotTableCaption")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("deal")),
      h("th", { scope: "col", class: "num" }, t("plotPartnerSeat", { seat: who(0) })),
      h("th", { scope: "col", class: "num" }, t("plotPartnerOpen", { seat: who(0) })),
      h("th", { scope: "col", class: "num" }, t("plotPartnerSeat", { seat: seatName(seats[1]) })),
      h("th", { scope: "col", class: "num" }, t("plotPartnerOpen", { seat: seatName(seats[1]) })))),
    h("tbody", {}, deals.map((k) => h("tr", {}, h("th", { scope: "row" }, num(k + 1)),
      h("td", { class: "num" }, fmt(by[seats[0]][k].lost_seat)), h("td", { class: "num" }, num(by[seats[0]][k].lost_open)),
      h("td", { class: "num" }, fmt(by[seats[1]][k].lost_seat)), h("td", { class: "num" }, num(by[seats[1]][k].lost_open))))));
  return h("figure", { class: "an-figure" },
    h("h3", { id: "an-plot-title" }, t("plotTitle")),
    scrollBox(plot, width),
    h("p", { id: "an-plot-desc", class: "sr-only" }, words.join(" ")),
    h("ul", { class: "an-legend", "aria-hidden": "true" },
      h("li", {}, h("span", { class: "key seat-0" }), who(0)),
      h("li", {}, h("span", { class: "key seat-2" }), seatName(seats[1])),
      h("li", {}, h("span", { class: "key open" }), t("plotLegendOpen"))),
    h("details", { class: "an-deals-box" }, h("summary", {}, t("plotTable")), table));
}
