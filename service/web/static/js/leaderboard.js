// The /leaderboard page: a day (any past day), an ISO week, a month or all time, seen in one of the
// page's views (boardviews.js): the board by points (here: pages of 50, the player's own rank
// with the entries around it, the day's histogram with their score marked), the board by
// matchpoints (mpboard.js) and a day's deals (dealsview.js); the board by points of everyone or
// of one of the player's leagues (leagueboard.js).
import { api } from "./api.js";
import { addView, allViews, findView, onViewsChanged } from "./boardviews.js";
import { fill, h } from "./dom.js";
import { leagueBoard, leagueTabs } from "./leagueboard.js";
import { drawHistogram } from "./histogram.js";
import { num, t } from "./i18n.js";
import { ownSubmission } from "./mygames.js";
import { drawPager } from "./pager.js";
import { boardPath, periodCells, periodHeads, periodLabel } from "./periods.js";

const LIMIT = 50;
const KINDS = ["day", "week", "month", "all"];

// A closed day's game may be analysed by anyone: its submission id, where the entry gives one.
const entrySubmission = (e) => e.submission_id || e.submission || null;

function analysisSection() {
  let section = document.getElementById("analysis");
  if (!section) {
    section = h("section", { id: "analysis", class: "panel analysis", hidden: true, "aria-labelledby": "analysis-title" });
    document.querySelector(".board-panel").after(section);
  }
  return section;
}

async function analyseLink(subId, nickname, mine, label = t("analyse")) {
  const { analyseButton } = await import("./analysis.js");
  return analyseButton({ key: `sub:${subId}`, ask: `/submissions/${subId}/analysis`,
    record: `/submissions/${subId}/record`, player: mine ? null : nickname,
    title: mine ? t("analysisTitle") : t("analysisOf", { nick: nickname || "—" }) },
  analysisSection(), label, { "aria-label": mine ? t("analyseMine") : t("analyseEntry", { nick: nickname || "—" }) });
}

function rows(entries, kind, mePlayer, analysable) {
  return entries.map((e) => {
    const mine = mePlayer && e.player === mePlayer;
    const cells = [h("td", { class: "num" }, num(e.rank)), h("td", { class: "nick" }, e.nickname || "—")];
    if (kind === "day") cells.push(h("td", { class: "num" }, num(e.score)));
    else cells.push(...periodCells(e.margin, e.days));
    if (analysable) {
      const cell = h("td", { class: "an-cell" });
      const sub = entrySubmission(e);
      if (sub) analyseLink(sub, e.nickname, mine).then((b) => cell.append(b));
      cells.push(cell);
    }
    return h("tr", { class: mine ? "mine" : null, "aria-current": mine ? "true" : null }, cells);
  });
}

// Every board counts in one unit, points: a day's score, and a period's sum of each day's points
// above or below 1000 with the mean day it makes (periods.js).
function boardTable(page, kind, caption, mePlayer, quietCaption = false, closed = false, empty = t("boardEmpty")) {
  const analysable = closed && kind === "day" && page.entries.some(entrySubmission);
  const heads = kind === "day" ? [t("colRank"), t("colPlayer"), t("colPoints")]
    : [t("colRank"), t("colPlayer"), ...periodHeads()];
  if (analysable) heads.push(t("colAnalysis"));
  return h("table", { class: "board" },
    h("caption", { class: quietCaption ? "sr-only" : null }, caption),
    h("thead", {}, h("tr", {}, heads.map((x, i) => h("th", { scope: "col", class: i === 1 || (analysable && i === heads.length - 1) ? null : "num" }, x)))),
    h("tbody", {}, page.entries.length ? rows(page.entries, kind, mePlayer, analysable)
      : h("tr", {}, h("td", { colspan: heads.length }, empty))));
}

// What an empty board says: a past day that no one played, or a period with no score yet.
function emptyText({ kind, day }, today) {
  return kind === "day" && day < today ? t("dayNobody") : t("boardEmpty");
}

// "Around you" is worth showing only when it has entries that the page above does not.
function addsRows(around, page) {
  const shown = new Set(page.entries.map((e) => e.player));
  return around.entries.some((e) => !shown.has(e.player));
}

// The board by points (the official one): the built-in view, drawn into the page's own elements.
async function drawPoints(box, ctx) {
  const meBox = box.querySelector("#board-me");
  const list = box.querySelector("#board-list");
  const pager = box.querySelector("#board-pager");
  const histBox = box.querySelector("#board-hist");
  list.setAttribute("aria-busy", "true");
  const path = boardPath(ctx.kind, ctx.day);
  if (await leagueBoard({ league: ctx.league }, path, { list, pager, me: meBox, hist: histBox, title: ctx.titleBox },
    () => !ctx.current())) return;
  let page;
  try {
    page = await api.get(`${path}?offset=${ctx.offset}&limit=${LIMIT}`);
  } catch (e) {
    list.replaceChildren(h("p", { class: "error", role: "alert" }, t("boardError")));
    list.removeAttribute("aria-busy");
    return;
  }
  if (!ctx.current()) return;
  const me = page.me || null;
  // a past day whose seed is public: its games may be analysed
  let closed = false;
  if (ctx.kind === "day" && ctx.day < ctx.today) {
    try {
      closed = Boolean((await api.get(`/challenges/${ctx.day}`)).seed);
    } catch { /* no analysis offered */ }
    if (!ctx.current()) return;
  }
  list.replaceChildren(boardTable(page, ctx.kind, ctx.title, me && me.player, true, closed, emptyText(ctx, ctx.today)));
  list.removeAttribute("aria-busy");
  drawPager(pager, { offset: ctx.offset, limit: LIMIT, total: page.total }, (offset) => ctx.go({ offset }));
  meBox.hidden = true;
  if (me) {
    try {
      const around = await api.get(`${path}/me?radius=5`);
      if (!ctx.current()) return;
      fill(meBox, h("h2", {}, t("yourRank", { rank: num(me.rank), total: num(page.total) })),
        addsRows(around, page) ? boardTable(around, ctx.kind, t("aroundYou"), me.player, false, closed) : null);
      const own = closed && (ownSubmission(ctx.day) || me.submission_id); // a game played on another device
      if (own) meBox.append(h("p", {}, await analyseLink(own, me.nickname, true, t("analyseMine"))));
      // a closed day's result: the rating it gave ("Your rating 1,612 ± 48, +23"), once rated
      if (closed && ctx.kind === "day") {
        const line = await (await import("./ratingline.js")).ratingLine(ctx.day);
        if (line && ctx.current()) meBox.append(line);
      }
      meBox.hidden = false;
    } catch { /* the page above still shows the board */ }
  } else if (page.me === null) {
    meBox.replaceChildren(h("p", {}, t("notOnBoard")));
    meBox.hidden = false;
  }
  histBox.replaceChildren();
  if (ctx.kind === "day" && page.total) { // an empty day's board says so; no empty chart under it
    try {
      const hist = await api.get(`/leaderboards/days/${ctx.day}/histogram`);
      if (!ctx.current()) return;
      histBox.replaceChildren(h("h2", {}, t("histTitle")), drawHistogram(hist, me ? me.score : null));
    } catch { /* optional */ }
  }
}

addView({ id: "points", label: () => t("viewPoints"), periods: KINDS, draw: drawPoints });
addView({ id: "matchpoints", label: () => t("viewMatchpoints"), periods: ["day", "week", "month"],
  draw: async (box, ctx) => (await import("./mpboard.js")).drawMpBoard(box, ctx) });
addView({ id: "deals", label: () => t("viewDeals"), periods: ["day"],
  draw: async (box, ctx) => (await import("./dealsview.js")).drawDeals(box, ctx) });
addView({ id: "ratings", label: () => t("viewRatings"), periods: ["all"],
  draw: async (box, ctx) => (await import("./ratingboard.js")).drawRatings(box, ctx) });
// the views that a league's tab narrows to its members
const LEAGUE_VIEWS = ["points", "ratings"];

// The URL's own parameters; any other (a view's: ?deal=) is the view's, kept until it changes.
const PAGE_PARAMS = ["view", "board", "day", "offset", "league", "lang"];

export function startLeaderboard(data) {
  const params = new URLSearchParams(location.search);
  const today = data.today;
  const state = {
    view: params.get("view") || "points",
    kind: KINDS.includes(params.get("board")) ? params.get("board") : "day",
    day: /^\d{4}-\d{2}-\d{2}$/.test(params.get("day") || "") && params.get("day") <= today ? params.get("day") : today,
    offset: Math.max(0, Number(params.get("offset")) || 0),
    league: params.get("league") || null, // a league's board by points instead of everyone's
    extra: Object.fromEntries([...params].filter(([k]) => !PAGE_PARAMS.includes(k))),
  };
  const tabs = [...document.querySelectorAll("[data-board]")];
  const viewTabs = document.getElementById("board-views");
  const panel = document.querySelector(".board-panel");
  const dateInput = document.getElementById("board-date");
  const title = document.getElementById("board-period");
  dateInput.max = today;
  dateInput.value = state.day;
  let loading = 0;

  // Each view draws into a box of its own (the points board's is the page's), the others hidden.
  const boxOf = (view) => {
    let box = panel.querySelector(`[data-view="${view.id}"]`);
    if (!box) {
      box = h("div", { class: "board-view", "data-view": view.id, hidden: true });
      panel.append(box);
    }
    return box;
  };

  const writeUrl = () => {
    const q = new URLSearchParams({ board: state.kind, day: state.day });
    if (state.view !== "points") q.set("view", state.view);
    if (state.offset) q.set("offset", state.offset);
    if (state.league) q.set("league", state.league);
    for (const [k, v] of Object.entries(state.extra)) if (v !== null && v !== undefined) q.set(k, v);
    history.replaceState(null, "", `?${q}`);
  };

  // a new view, a new period or day: the view's own state starts afresh
  const change = (patch) => {
    Object.assign(state, { offset: 0, extra: {} }, patch);
    load();
  };

  // the buttons stay from one draw to the next (the one just pressed keeps the focus); they are
  // put in again only when the views themselves change
  const drawViewTabs = () => {
    const current = findView(state.view);
    const had = [...viewTabs.querySelectorAll("[data-view-tab]")];
    const byId = new Map(had.map((b) => [b.dataset.viewTab, b]));
    const buttons = allViews().map((v) => {
      const b = byId.get(v.id) || h("button", { type: "button", class: "btn", "data-view-tab": v.id,
        onclick: () => change({ view: v.id }) });
      b.textContent = v.label();
      b.setAttribute("aria-pressed", String(v === current));
      return b;
    });
    if (buttons.length !== had.length || buttons.some((b, i) => b !== had[i])) fill(viewTabs, buttons);
    viewTabs.hidden = allViews().length < 2;
  };
  onViewsChanged(drawViewTabs);

  async function load() {
    const ticket = ++loading;
    const view = findView(state.view);
    state.view = view.id;
    if (!view.periods.includes(state.kind)) state.kind = view.periods[0];
    drawViewTabs();
    tabs.forEach((b) => {
      b.hidden = !view.periods.includes(b.dataset.board);
      b.setAttribute("aria-pressed", String(b.dataset.board === state.kind));
    });
    tabs[0].closest(".tabs").hidden = view.periods.length < 2;
    dateInput.closest(".date-field").hidden = state.kind === "all";
    writeUrl();
    const label = periodLabel(state.kind, state.day, today);
    title.textContent = label;
    for (const v of allViews()) boxOf(v).hidden = v !== view;
    showScope();
    const ctx = {
      kind: state.kind, day: state.day, today, offset: state.offset, title: label, titleBox: title,
      league: LEAGUE_VIEWS.includes(view.id) ? state.league : null,
      current: () => ticket === loading,
      go: (patch) => {
        Object.assign(state, patch);
        load();
      },
      param: (name) => (state.extra[name] === undefined ? null : String(state.extra[name])),
      setParam: (name, value) => {
        state.extra[name] = value;
        writeUrl();
      },
    };
    // busy from the click until this draw is done: the previous board's words stay on show while
    // a view's module loads, and must not be read as the new board's
    const box = boxOf(view);
    box.setAttribute("aria-busy", "true");
    try {
      await view.draw(box, ctx);
    } finally {
      if (ctx.current()) box.removeAttribute("aria-busy");
    }
  }

  tabs.forEach((b) => b.addEventListener("click", () => change({ kind: b.dataset.board })));
  dateInput.addEventListener("change", () => {
    if (!dateInput.value || dateInput.value > today) return;
    change({ day: dateInput.value });
  });
  // the leagues' tabs (Everyone, then each league) choose whose board by points is shown
  const showScope = () => {
    const scope = document.querySelector(".scope-tabs");
    if (scope) scope.hidden = !LEAGUE_VIEWS.includes(findView(state.view).id);
  };
  leagueTabs(state, load).then(showScope);
  load();
}
