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

export function betterThan(bins, score) {
  const total = bins.reduce((s, b) => s + b.count, 0);
  const below = bins.filter((b) => b.score < score).reduce((s, b) => s + b.count, 0);
  return total ? Math.floor((100 * below) / total) : 0;
}

export function drawHistogram(histogram, mine = null) {
  const figure = document.createElement("figure");
  figure.className = "histogram";
  const { bars } = buckets(histogram.bins || []);
  const chart = document.createElement("div");
  chart.className = "bars";
  chart.setAttribute("role", "img");
  const max = Math.max(1, ...bars.map((b) => b.count));
  for (const bar of bars) {
    const el = document.createElement("div");
    el.className = "bar";
    el.style.height = `${Math.max(2, Math.round((100 * bar.count) / max))}%`;
    el.title = t("histBar", { from: num(bar.from), to: num(bar.to), n: num(bar.count) });
    if (mine !== null && mine >= bar.from && mine <= bar.to) {
      el.classList.add("mine");
      const tag = document.createElement("span");
      tag.className = "mine-tag";
      tag.textContent = t("you");
      el.append(tag);
    }
    chart.append(el);
  }
  const summary = bars.length
    ? t("histSummary", { n: num(histogram.total), lo: num(bars[0].from), hi: num(bars[bars.length - 1].to) })
    : t("histEmpty");
  chart.setAttribute("aria-label", mine === null ? summary : `${summary} ${t("histMine", { score: num(mine) })}`);
  const axis = document.createElement("div");
  axis.className = "axis";
  axis.setAttribute("aria-hidden", "true");
  if (bars.length) {
    const lo = document.createElement("span");
    lo.textContent = num(bars[0].from);
    const hi = document.createElement("span");
    hi.textContent = num(bars[bars.length - 1].to);
    axis.append(lo, hi);
  }
  const caption = document.createElement("figcaption");
  caption.textContent = summary;
  figure.append(chart, axis, caption);
  return figure;
}
