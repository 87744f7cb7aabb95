// The boards by matchpoints (the leaderboard's "Matchpoints" view): a day's games ranked by the
// mean of their deals' matchpoints, a week's and a month's players by the mean of their daily
// ones. Each is computed by the server every few minutes, not per game: the page says how fresh
// (provisional, computed N minutes ago, from how many games) or that it is final.
import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { mpText } from "./fieldchart.js";
import { lang, num, t } from "./i18n.js";
import { drawPager } from "./pager.js";
import { boardPath } from "./periods.js";

const LIMIT = 50;

// "computed 3 minutes ago" in the page's language, from the board's built_at.
export function freshness(board, now = Date.now()) {
  if (board.final) return t(board.board === "day" ? "mpFinalDay" : "mpFinalPeriod");
  if (!board.built_at) return t("mpNotYet");
  const minutes = Math.max(0, Math.round((now - Date.parse(board.built_at)) / 60000));
  const relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  const ago = minutes < 1 ? t("justNow")
    : minutes < 60 ? relative.format(-minutes, "minute") : relative.format(-Math.round(minutes / 60), "hour");
  return t(board.board === "day" ? "mpProvisionalDay" : "mpProvisionalPeriod", { ago, count: board.games });
}

function table(page, caption, mePlayer, quiet, empty) {
  const period = page.board !== "day";
  const heads = [t("colRank"), t("colPlayer"), t("colMp"), ...(period ? [t("colDays")] : [])];
  return h("table", { class: "board mp-board" },
    h("caption", { class: quiet ? "sr-only" : null }, caption),
    h("thead", {}, h("tr", {}, heads.map((x, i) => h("th", { scope: "col", class: i === 1 ? null : "num" }, x)))),
    h("tbody", {}, page.entries.length ? page.entries.map((e) => {
      const mine = mePlayer && e.player === mePlayer;
      return h("tr", { class: mine ? "mine" : null, "aria-current": mine ? "true" : null },
        h("td", { class: "num" }, num(e.rank)), h("td", { class: "nick" }, e.nickname || "—"),
        h("td", { class: "num" }, mpText(e.mp, 2)), period ? h("td", { class: "num" }, num(e.days)) : null);
    }) : h("tr", {}, h("td", { colspan: heads.length }, empty))));
}

// Draws the board of `ctx.kind` (day, week, month) around `ctx.day` into `box`.
export async function drawMpBoard(box, ctx) {
  const path = `${boardPath(ctx.kind, ctx.day)}/matchpoints`;
  const list = h("div", { class: "board-list", "aria-busy": "true" });
  const fresh = h("p", { class: "mp-fresh" });
  const meBox = h("section", { class: "board-me", hidden: true, "aria-label": t("yourPlace") });
  const pager = h("nav", { class: "pager", "aria-label": t("pagesLabel") });
  fill(box, h("p", { class: "note" }, t(ctx.kind === "day" ? "mpNoteDay" : "mpNotePeriod")), fresh, meBox, list, pager);
  let page;
  try {
    page = await api.get(`${path}?offset=${ctx.offset}&limit=${LIMIT}`);
  } catch {
    if (!ctx.current()) return;
    list.removeAttribute("aria-busy");
    list.replaceChildren(h("p", { class: "error", role: "alert" }, t("boardError")));
    return;
  }
  if (!ctx.current()) return;
  fresh.textContent = freshness(page);
  const me = page.me || null;
  const empty = page.built_at ? t("mpEmpty") : t("mpNotYet");
  list.replaceChildren(table(page, ctx.title, me && me.player, true, empty));
  list.removeAttribute("aria-busy");
  drawPager(pager, { offset: ctx.offset, limit: LIMIT, total: page.total }, (offset) => ctx.go({ offset }));
  if (!me) return;
  const shown = new Set(page.entries.map((e) => e.player));
  let around = null;
  if (!shown.has(me.player)) {
    try {
      around = await api.get(`${path}/me?radius=5`);
    } catch { /* the page above still shows the board */ }
    if (!ctx.current()) return;
  }
  fill(meBox, h("h2", {}, t("yourMpRank", { rank: num(me.rank), total: num(page.total), mp: mpText(me.mp, 2) })),
    around ? table(around, t("aroundYou"), me.player, false, "") : null);
  meBox.hidden = false;
}
