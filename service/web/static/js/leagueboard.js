// A league's boards: a tab per league on the leaderboard page beside the public board, the
// league's board of the chosen period (rank in the league beside the public rank, and who has
// not played), and the line the end of the day's game says for each league ("in X: 2nd of 5").
import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { num, t } from "./i18n.js";
import { periodCells, periodHeads } from "./periods.js";
import { shareOrCopy } from "./share.js";

async function myLeagues() {
  if (!api.hasToken()) return [];
  try {
    return (await api.get("/players/me/leagues")).leagues;
  } catch {
    return [];
  }
}

// The tabs "Everyone" and one per league, before the period's tabs; `reload()` draws the board again.
export async function leagueTabs(state, reload) {
  const leagues = await myLeagues();
  if (state.league && !leagues.some((lg) => lg.league_id === state.league)) {
    state.league = null; // left, removed, or another browser's link: the public board
    reload();
  }
  if (!leagues.length) return;
  const group = h("div", { class: "tabs scope-tabs", role: "group", "aria-label": t("boardOf") });
  const press = () => group.querySelectorAll("button").forEach((b) =>
    b.setAttribute("aria-pressed", String(b.dataset.league === (state.league || ""))));
  const tab = (id, label) => h("button", { type: "button", class: "btn", "data-league": id || "",
    onclick: () => {
      state.league = id;
      state.offset = 0;
      press();
      reload();
    } }, label);
  group.append(tab(null, t("everyone")), ...leagues.map((lg) => tab(lg.league_id, lg.name)));
  press();
  document.querySelector(".board-controls").before(group);
}

function leagueTable(board, caption) {
  const day = board.board === "day";
  const heads = [t("colLeagueRank"), t("colPlayer"), ...(day ? [t("colPoints")] : periodHeads()),
    t("colPublicRank")];
  const rows = board.entries.map((e) => h("tr", { class: e.me ? "mine" : null, "aria-current": e.me ? "true" : null },
    h("td", { class: "num" }, num(e.rank)), h("td", { class: "nick" }, e.nickname || "—"),
    day ? h("td", { class: "num" }, num(e.score, { useGrouping: false }))
      : periodCells(e.sum, e.days),
    h("td", { class: "num" }, t("publicRank", { rank: num(e.public_rank), total: num(board.public_total) }))));
  return h("table", { class: "board league-board" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, heads.map((x, i) => h("th", { scope: "col", class: i === 1 ? null : "num" }, x)))),
    h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: heads.length }, t("leagueBoardEmpty")))));
}

// The league's board of `path` (the public board's path) in `boxes.list`, the public board's
// pager, histogram and "your rank" put away; false when the page shows the public board.
export async function leagueBoard(state, path, boxes, stale) {
  if (!state.league) return false;
  boxes.pager.replaceChildren();
  boxes.hist.replaceChildren();
  boxes.me.hidden = true;
  let board;
  try {
    board = await api.get(`/leagues/${encodeURIComponent(state.league)}${path}`);
  } catch {
    if (!stale()) fill(boxes.list, h("p", { class: "error", role: "alert" }, t("boardError")));
    boxes.list.removeAttribute("aria-busy");
    return true;
  }
  if (stale()) return true;
  const absent = board.not_played.length ? h("p", { class: "not-played" },
    t(board.board === "day" ? "notPlayedYet" : "notPlayedPeriod"), " ",
    board.not_played.map((name, i) => [i ? ", " : "", h("span", { class: "nick" }, name || t("noNameYet"))])) : null;
  fill(boxes.list, leagueTable(board, t("leagueBoardCaption", { name: board.name, period: boxes.title.textContent })),
    absent);
  boxes.list.removeAttribute("aria-busy");
  return true;
}

// "in X: 2nd of 5 today" for each of the player's leagues that has their score of `day`, each a
// link to that league's board and a button to share it with the league's invite link.
export async function standings(box, day) {
  const leagues = await myLeagues();
  if (!leagues.length) return;
  const boards = await Promise.all(leagues.map((lg) => api.get(
    `/leagues/${encodeURIComponent(lg.league_id)}/leaderboards/days/${day}`).catch(() => null)));
  const lines = [];
  leagues.forEach((lg, i) => {
    const board = boards[i];
    const mine = board && board.entries.find((e) => e.me);
    if (!mine) return;
    const text = t("standing", { name: board.name, rank: t("ordinal", { n: mine.rank }), n: num(board.entries.length) });
    const said = h("span", { class: "copied", role: "status" });
    const share = h("button", { type: "button", class: "btn small", "aria-label": t("shareStandingIn", { name: board.name }),
      onclick: async () => {
        let url = `${location.origin}/leaderboard?league=${encodeURIComponent(lg.league_id)}`;
        try {
          url = new URL((await api.get(`/leagues/${encodeURIComponent(lg.league_id)}`)).invite_url, location.origin).href;
        } catch { /* the board's link will do */ }
        said.textContent = await shareOrCopy({ title: "Manille", text: `Manille ${day} · ${text}`, url });
      } }, t("share"));
    lines.push(h("li", {}, h("a", { href: `/leaderboard?league=${encodeURIComponent(lg.league_id)}&board=day&day=${day}` }, text),
      " ", share, " ", said));
  });
  if (lines.length) box.append(h("ul", { class: "standings", "aria-label": t("inYourLeagues") }, lines));
}
