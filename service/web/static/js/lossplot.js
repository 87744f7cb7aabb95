// Points lost deal by deal, you and your partner: an SVG bar chart (solid bars: from the seat;
// dashed outlines: with hindsight), described in words, with the same figures as a table.
import { h } from "./dom.js";
import { num, seatName, t } from "./i18n.js";
import { fmt, who } from "./decision.js";

const NS = "http://www.w3.org/2000/svg";
const BAR = 14;
const GAP = 4;
const GROUP = 2 * BAR + GAP + 22;
const HEIGHT = 120;
const TOP = 16;
const BASE = TOP + HEIGHT;

function svg(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

export function lossPlot(summary, seats) {
  const deals = summary[String(seats[0])].by_deal.map((x) => x.deal);
  const by = Object.fromEntries(seats.map((s) => [s, Object.fromEntries(summary[String(s)].by_deal.map((x) => [x.deal, x]))]));
  const top = Math.max(1, ...seats.flatMap((s) => deals.flatMap((k) => [by[s][k].lost_seat, by[s][k].lost_open])));
  const y = (v) => BASE - (HEIGHT * Math.max(0, v)) / top;
  const width = 30 + deals.length * GROUP;
  const plot = svg("svg", { viewBox: `0 0 ${width} ${BASE + 22}`, width: Math.round(width * 1.25),
    height: Math.round((BASE + 22) * 1.25), class: "an-plot", role: "img",
    "aria-labelledby": "an-plot-title", "aria-describedby": "an-plot-desc", focusable: "false" });
  plot.append(svg("line", { x1: 24, x2: width, y1: BASE, y2: BASE, class: "axis" }));
  plot.append(svg("text", { x: 20, y: TOP + 4, class: "tick", "text-anchor": "end" }, num(top, { maximumFractionDigits: 0 })));
  plot.append(svg("text", { x: 20, y: BASE, class: "tick", "text-anchor": "end" }, "0"));
  deals.forEach((k, i) => {
    const x0 = 30 + i * GROUP;
    seats.forEach((s, j) => {
      const x = x0 + j * (BAR + GAP);
      const row = by[s][k];
      plot.append(svg("rect", { x: x - 2, width: BAR + 4, y: y(row.lost_open), height: BASE - y(row.lost_open),
        class: `open seat-${s}` }));
      plot.append(svg("rect", { x, width: BAR, y: y(row.lost_seat), height: BASE - y(row.lost_seat), class: `seat seat-${s}` }));
      if (row.lost_seat > 0) {
        plot.append(svg("text", { x: x + BAR / 2, y: y(row.lost_seat) - 3, class: "val", "text-anchor": "middle" },
          num(row.lost_seat, { maximumFractionDigits: 0 })));
      }
    });
    plot.append(svg("text", { x: x0 + BAR + GAP / 2, y: BASE + 16, class: "tick", "text-anchor": "middle" }, num(k + 1)));
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
    plot,
    h("p", { id: "an-plot-desc", class: "sr-only" }, words.join(" ")),
    h("ul", { class: "an-legend", "aria-hidden": "true" },
      h("li", {}, h("span", { class: "key seat-0" }), who(0)),
      h("li", {}, h("span", { class: "key seat-2" }), seatName(seats[1])),
      h("li", {}, h("span", { class: "key open" }), t("plotLegendOpen"))),
    h("details", { class: "an-deals-box" }, h("summary", {}, t("plotTable")), table));
}
