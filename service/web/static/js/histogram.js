// A day's scores as bars, the player's own score marked; shared by the end of game and the board.
import { num, t } from "./i18n.js";

const MAX_BARS = 32;

// Groups the server's bins (one per score) into at most MAX_BARS equal-width buckets.
function buckets(bins) {
  const sorted = bins.filter((b) => b.count > 0).sort((a, b) => a.score - b.score);
  if (!sorted.length) return { width: 10, bars: [] };
  const lo = sorted[0].score;
  const hi = sorted[sorted.length - 1].score;
  let width = 10;
  while ((hi - lo) / width + 1 > MAX_BARS) width *= 2;
  const start = Math.floor(lo / width) * width;
  const bars = [];
  for (let from = start; from <= hi; from += width) bars.push({ from, to: from + width - 10, count: 0 });
  for (const b of sorted) bars[Math.floor((b.score - start) / width)].count += b.count;
  return { width, bars };
}

// The score a bar stands for, as its tooltip says it.
function barText(bar) {
  return bar.from === bar.to ? t("histBarScore", { score: num(bar.from), count: bar.count })
    : t("histBar", { from: num(bar.from), to: num(bar.to), count: bar.count });
}

// The axis' two labels hang under the first and the last bar (one under a lone bar): they say
// where the bars are, not where the chart's box ends.
function tick(text, where) {
  const el = document.createElement("span");
  el.className = `tick tick-${where}`;
  el.setAttribute("aria-hidden", "true");
  el.textContent = text;
  return el;
}

export function drawHistogram(histogram, mine = null) {
  const figure = document.createElement("figure");
  figure.className = "histogram";
  const { bars } = buckets(histogram.bins || []);
  const caption = document.createElement("figcaption");
  if (!bars.length) { // no chart of nothing: the caption says so
    caption.textContent = t("histEmpty");
    figure.append(caption);
    return figure;
  }
  const chart = document.createElement("div");
  chart.className = "bars";
  chart.setAttribute("role", "img");
  const max = Math.max(1, ...bars.map((b) => b.count));
  const els = bars.map((bar) => {
    const el = document.createElement("div");
    el.className = "bar";
    el.style.height = `${Math.max(2, Math.round((100 * bar.count) / max))}%`;
    el.title = barText(bar);
    if (mine !== null && mine >= bar.from && mine <= bar.to) {
      el.classList.add("mine");
      const tag = document.createElement("span");
      tag.className = "mine-tag";
      tag.textContent = t("you");
      el.append(tag);
    }
    chart.append(el);
    return el;
  });
  const lo = bars[0].from;
  const hi = bars[bars.length - 1].to;
  if (els.length === 1) els[0].append(tick(lo === hi ? num(lo) : `${num(lo)}–${num(hi)}`, "only"));
  else {
    els[0].append(tick(num(lo), "lo"));
    els[els.length - 1].append(tick(num(hi), "hi"));
  }
  const summary = t("histSummary", { count: histogram.total, lo: num(lo), hi: num(hi) });
  chart.setAttribute("aria-label", mine === null ? summary : `${summary} ${t("histMine", { score: num(mine) })}`);
  caption.textContent = summary;
  figure.append(chart, caption);
  return figure;
}
