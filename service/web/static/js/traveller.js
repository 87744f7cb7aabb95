// A deal's traveller, once its day's seed is published: every counted result on the deal, best
// card points first (equal points share a rank, the earlier verified first), a page at a time;
// the reader's own row marked, and each result a button that replays how that player played the
// deal (dealmovie.js).
import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { fieldChart, fieldWords, mpText } from "./fieldchart.js";
import { num, t } from "./i18n.js";
import { drawPager } from "./pager.js";

export const TRAVELLER_LIMIT = 20;

// `box`: the section to fill; `mine`: {player, submission, us} of the reader's own result, or
// null; `onReplay(entry)`: a result's button.
export async function showTraveller(box, { day, deal, mine = null, onReplay, offset = 0, focus = true }) {
  const title = h("h3", { id: "traveller-title", tabindex: "-1" }, t("travellerTitle", { n: num(deal + 1) }));
  const body = h("div", { class: "traveller-body", "aria-busy": "true" });
  fill(box, title, body);
  box.hidden = false;
  if (focus) {
    box.scrollIntoView({ block: "start" });
    title.focus({ preventScroll: true });
  }
  let page;
  try {
    page = await api.get(`/leaderboards/days/${day}/deals/${deal}?offset=${offset}&limit=${TRAVELLER_LIMIT}`);
  } catch (e) {
    body.removeAttribute("aria-busy");
    body.replaceChildren(h("p", { class: "error", role: "alert" }, t("travellerError")));
    return null;
  }
  const isMine = (e) => Boolean(mine) && (e.submission_id === mine.submission || e.player === mine.player);
  const rows = page.entries.map((e) => {
    const own = isMine(e);
    const who = own ? t("youNamed", { nick: e.nickname }) : e.nickname;
    return h("tr", { class: own ? "mine" : null, "aria-current": own ? "true" : null },
      h("td", { class: "num" }, num(e.rank)),
      h("td", { class: "nick" }, who),
      h("td", { class: "num" }, t("pointsPair", { us: num(e.us), them: num(e.them) })),
      h("td", { class: "num" }, mpText(e.mp)),
      h("td", {}, e.submission_id ? h("button", { type: "button", class: "btn replay",
        "aria-label": t("replayOf", { n: num(deal + 1), nick: who }), onclick: () => onReplay(e) }, t("replay")) : null));
  });
  const table = h("table", { class: "board traveller" },
    h("caption", { class: "sr-only" }, t("travellerCaption", { n: num(deal + 1) })),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", class: "num" }, t("colRank")),
      h("th", { scope: "col" }, t("colPlayer")),
      h("th", { scope: "col", class: "num" }, t("colCardPoints")),
      h("th", { scope: "col", class: "num" }, t("colMp")),
      h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("colReplay"))))),
    h("tbody", {}, rows));
  const pager = h("nav", { class: "pager", "aria-label": t("travellerPages") });
  const go = (at) => showTraveller(box, { day, deal, mine, onReplay, offset: at, focus: true });
  drawPager(pager, { offset, limit: TRAVELLER_LIMIT, total: page.results }, go);
  // the reader's own result on another page: one button takes them there. The counts place it
  // among the results with the same card points (ties: earlier verification first), which may
  // span pages: from inside that block the button goes on to its next page.
  let toMine = null;
  if (mine && mine.us !== null && mine.us !== undefined && !page.entries.some(isMine)) {
    const above = page.counts.slice(mine.us + 1).reduce((a, b) => a + b, 0);
    const tied = Math.max(1, page.counts[mine.us] || 0);
    const first = Math.floor(above / TRAVELLER_LIMIT) * TRAVELLER_LIMIT;
    const last = Math.floor((above + tied - 1) / TRAVELLER_LIMIT) * TRAVELLER_LIMIT;
    const at = offset >= first && offset < last ? offset + TRAVELLER_LIMIT : first;
    toMine = h("p", {}, h("button", { type: "button", class: "btn", onclick: () => go(at) }, t("toMyResult")));
  }
  body.removeAttribute("aria-busy");
  fill(body,
    h("p", { class: "traveller-facts" }, fieldWords(page, mine ? mine.us : null)),
    fieldChart(page, mine ? mine.us : null, { said: false }),
    h("div", { class: "board-list" }, table),
    pager,
    toMine);
  return page;
}
