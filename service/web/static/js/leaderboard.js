// The /leaderboard page: a day (any past day), an ISO week, a month or all time; pages of 50;
// the player's own rank with the entries around it; the day's histogram with their score marked.
import { api } from "./api.js";
import { fill, h, store } from "./dom.js";
import { drawHistogram } from "./histogram.js";
import { num, signed, t } from "./i18n.js";
import { drawPager } from "./pager.js";
import { boardPath, periodLabel } from "./periods.js";
import { leagueBoard, leagueTabs } from "./leagueboard.js";

const LIMIT = 50;
const KINDS = ["day", "week", "month", "all"];

// A closed day's game may be analysed by anyone: its submission id, where the entry gives one.
const entrySubmission = (e) => e.submission_id || e.submission || null;

// This device's own ranked games, {date: submission id} (kept by endgame.js).
function ownSubmission(day) {
  try { return (JSON.parse(store.get("manille.submissions") || "{}") || {})[day] || null; } catch { return null; }
}

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
    else cells.push(h("td", { class: "num" }, signed(e.margin)), h("td", { class: "num" }, num(e.days)));
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
// above or below 1000.
function boardTable(page, kind, caption, mePlayer, quietCaption = false, closed = false, empty = t("boardEmpty")) {
  const analysable = closed && kind === "day" && page.entries.some(entrySubmission);
  const heads = kind === "day" ? [t("colRank"), t("colPlayer"), t("colPoints")]
    : [t("colRank"), t("colPlayer"), t("colPoints"), t("colDays")];
  if (analysable) heads.push(t("colAnalysis"));
  return h("table", { class: "board" },
    h("caption", { class: quietCaption ? "sr-only" : null }, caption),
    h("thead", {}, h("tr", {}, heads.map((x, i) => h("th", { scope: "col", class: i === 1 || (analysable && i === heads.length - 1) ? null : "num" }, x)))),
    h("tbody", {}, page.entries.length ? rows(page.entries, kind, mePlayer, analysable)
      : h("tr", {}, h("td", { colspan: heads.length }, empty))));
}

// What an empty board says: a past day that no one played, or a period with no score yet.
function emptyText(state, today) {
  return state.kind === "day" && state.day < today ? t("dayNobody") : t("boardEmpty");
}

// "Around you" is worth showing only when it has entries that the page above does not.
function addsRows(around, page) {
  const shown = new Set(page.entries.map((e) => e.player));
  return around.entries.some((e) => !shown.has(e.player));
}

export function startLeaderboard(data) {
  const params = new URLSearchParams(location.search);
  const today = data.today;
  const state = {
    kind: KINDS.includes(params.get("board")) ? params.get("board") : "day",
    day: /^\d{4}-\d{2}-\d{2}$/.test(params.get("day") || "") && params.get("day") <= today ? params.get("day") : today,
    offset: Math.max(0, Number(params.get("offset")) || 0),
    league: params.get("league") || null, // a league's board instead of everyone's (leagueboard.js)
  };
  const tabs = [...document.querySelectorAll("[data-board]")];
  const dateInput = document.getElementById("board-date");
  const meBox = document.getElementById("board-me");
  const list = document.getElementById("board-list");
  const pager = document.getElementById("board-pager");
  const histBox = document.getElementById("board-hist");
  const title = document.getElementById("board-period");
  dateInput.max = today;
  dateInput.value = state.day;
  let loading = 0;

  async function load() {
    const ticket = ++loading;
    tabs.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.board === state.kind)));
    dateInput.closest(".date-field").hidden = state.kind === "all";
    const q = new URLSearchParams({ board: state.kind, day: state.day });
    if (state.offset) q.set("offset", state.offset);
    if (state.league) q.set("league", state.league);
    history.replaceState(null, "", `?${q}`);
    title.textContent = periodLabel(state.kind, state.day, today);
    list.setAttribute("aria-busy", "true");
    const path = boardPath(state.kind, state.day);
    if (await leagueBoard(state, path, { list, pager, me: meBox, hist: histBox, title }, () => ticket !== loading)) return;
    let page;
    try {
      page = await api.get(`${path}?offset=${state.offset}&limit=${LIMIT}`);
    } catch (e) {
      list.replaceChildren(h("p", { class: "error", role: "alert" }, t("boardError")));
      list.removeAttribute("aria-busy");
      return;
    }
    if (ticket !== loading) return;
    const me = page.me || null;
    // a past day whose seed is public: its games may be analysed
    let closed = false;
    if (state.kind === "day" && state.day < today) {
      try {
        closed = Boolean((await api.get(`/challenges/${state.day}`)).seed);
      } catch { /* no analysis offered */ }
      if (ticket !== loading) return;
    }
    list.replaceChildren(boardTable(page, state.kind, periodLabel(state.kind, state.day, today), me && me.player,
      true, closed, emptyText(state, today)));
    list.removeAttribute("aria-busy");
    drawPager(pager, { offset: state.offset, limit: LIMIT, total: page.total }, (offset) => {
      state.offset = offset;
      load();
    });
    meBox.hidden = true;
    if (me) {
      try {
        const around = await api.get(`${path}/me?radius=5`);
        if (ticket !== loading) return;
        fill(meBox, h("h2", {}, t("yourRank", { rank: num(me.rank), total: num(page.total) })),
          addsRows(around, page) ? boardTable(around, state.kind, t("aroundYou"), me.player, false, closed) : null);
        const own = closed && ownSubmission(state.day);
        if (own) meBox.append(h("p", {}, await analyseLink(own, me.nickname, true, t("analyseMine"))));
        meBox.hidden = false;
      } catch { /* the page above still shows the board */ }
    } else if (page.me === null) {
      meBox.replaceChildren(h("p", {}, t("notOnBoard")));
      meBox.hidden = false;
    }
    histBox.replaceChildren();
    if (state.kind === "day" && page.total) { // an empty day's board says so; no empty chart under it
      try {
        const hist = await api.get(`/leaderboards/days/${state.day}/histogram`);
        if (ticket !== loading) return;
        histBox.replaceChildren(h("h2", {}, t("histTitle")), drawHistogram(hist, me ? me.score : null));
      } catch { /* optional */ }
    }
  }

  tabs.forEach((b) => b.addEventListener("click", () => {
    state.kind = b.dataset.board;
    state.offset = 0;
    load();
  }));
  dateInput.addEventListener("change", () => {
    if (!dateInput.value || dateInput.value > today) return;
    state.day = dateInput.value;
    state.offset = 0;
    load();
  });
  leagueTabs(state, load);
  load();
}
