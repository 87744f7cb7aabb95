// Where a verified score stands among the day's: its rank, and how it compares with the other
// players, in words that agree with each other whatever the count (the day's first player has no
// one to compare with; "better than 0 %" beside "rank 1" is never said).
import { num, t } from "./i18n.js";

// How many of the day's scores are strictly below `score` (`bins`: the day's histogram).
export function beatenIn(bins, score) {
  return bins.filter((b) => b.score < score).reduce((s, b) => s + b.count, 0);
}

export function standingWords({ rank, total, beaten }) {
  const others = Math.max(0, total - 1);
  const below = Math.max(0, Math.min(beaten, others));
  let compare;
  if (!others) compare = t("firstToPlay");
  else if (below === others) compare = t("beatAll", { count: others });
  else if (!below) compare = t("beatNone", { count: others });
  else {
    // floored: "100 %" only when every other player is below
    const pct = num(Math.floor((100 * below) / others) / 100, { style: "percent" });
    compare = t("beatSome", { count: others, pct });
  }
  return { rank: t("rankOf", { rank: num(rank), total: num(total), count: total }), compare };
}
