// The leaderboard's "Ratings" view: the rating board (the players whose rating is settled and who
// played in the last 30 days), or a league's members' ratings when a league is chosen.
import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { num, t } from "./i18n.js";
import { drawPager } from "./pager.js";
import { profileLink, ratingText } from "./ratingtext.js";

const LIMIT = 50;

function table(entries, caption, empty) {
  const heads = [t("colRank"), t("colPlayer"), t("colRating"), t("colRatedDays")];
  return h("table", { class: "board rating-board" },
    h("caption", { class: "sr-only" }, caption),
    h("thead", {}, h("tr", {}, heads.map((x, i) => h("th", { scope: "col", class: i === 1 ? null : "num" }, x)))),
    h("tbody", {}, entries.length ? entries.map((e) => h("tr", { class: e.me ? "mine" : null,
      "aria-current": e.me ? "true" : null },
    h("td", { class: "num" }, num(e.rank)), h("td", { class: "nick" }, profileLink(e.nickname)),
    h("td", { class: "num" }, ratingText(e)), h("td", { class: "num" }, num(e.games))))
      : h("tr", {}, h("td", { colspan: heads.length }, empty))));
}

export async function drawRatings(box, ctx) {
  const list = h("div", { class: "board-list", "aria-busy": "true" });
  const pager = h("nav", { class: "pager", "aria-label": t("pagesLabel") });
  fill(box, h("p", { class: "note" }, t("ratingsNote")), list, pager);
  let page;
  try {
    page = ctx.league ? await api.get(`/leagues/${encodeURIComponent(ctx.league)}/ratings`)
      : await api.get(`/ratings?offset=${ctx.offset}&limit=${LIMIT}`);
  } catch {
    if (!ctx.current()) return;
    list.removeAttribute("aria-busy");
    list.replaceChildren(h("p", { class: "error", role: "alert" }, t("boardError")));
    return;
  }
  if (!ctx.current()) return;
  ctx.titleBox.textContent = t("ratingsTitle");
  list.replaceChildren(table(page.entries, t("ratingsTitle"), t(ctx.league ? "leagueRatingsEmpty" : "ratingsEmpty")));
  list.removeAttribute("aria-busy");
  if (!ctx.league) drawPager(pager, { offset: ctx.offset, limit: LIMIT, total: page.total }, (offset) => ctx.go({ offset }));
}
