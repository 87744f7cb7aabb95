// Duels ("Challenge a friend"): after a free or archive game, a link that deals the same game to
// friends; the duel page (the friend plays it, the challenger sees the results); and every
// result side by side, deal by deal, each with its analysis.  The deals stay the friend's to
// find: the server shows no result to a friend before their own game is over.
import { api, ApiError } from "./api.js";
import { setStatus } from "./announcer.js";
import { fill, h } from "./dom.js";
import { longDate, num, t } from "./i18n.js";
import { linkBox } from "./share.js";

const who = (res) => (res.you ? t("you") : res.nickname || t("friendHead"));

// What the end of a finished run shows of duels: the offer after a free or archive game, the
// results after a duel's game.
export function duelParts(run) {
  if (run.kind === "duel") {
    const box = h("section", { class: "duel-results", "aria-labelledby": "duel-title" });
    showResults(box, run.duel_id);
    return [box];
  }
  if (run.kind !== "random" && run.kind !== "archive") return [];
  const box = h("div", { class: "duel-offer" });
  const error = h("p", { class: "error", role: "alert" });
  const button = h("button", { type: "button", class: "btn", onclick: async () => {
    button.disabled = true;
    error.textContent = "";
    try {
      offered(box, await api.post(`/runs/${run.run_id}/duel`), run);
    } catch (e) {
      button.disabled = false;
      error.textContent = e instanceof ApiError ? t("errorGeneric", { message: e.message }) : t("offline");
    }
  } }, t("challengeFriend"));
  box.append(h("p", {}, button, " ", h("span", { class: "note" }, t("challengeWhat"))), error);
  return [box];
}

function expiry(duel) {
  return longDate(duel.expires_at.slice(0, 10));
}

function offered(box, duel, run) {
  const title = h("h3", { tabindex: "-1" }, t("challengeMade"));
  fill(box, title,
    linkBox({ url: new URL(duel.url, location.origin).href, id: "duel-link", label: t("challengeLink"),
      title: "Manille", text: t("challengeText", { score: num(run.result.rank_score, { useGrouping: false }) }) }),
    h("p", { class: "note" }, t("challengeHelp", { date: expiry(duel) })),
    h("p", { class: "links" }, h("a", { href: duel.url }, t("seeChallengeResults"))));
  title.focus();
}

// The duel's results in `box`: a table of the deals, a column per result (card points, and
// matchpoints against the others), the games' scores, and each game's analysis.
export async function showResults(box, code) {
  let duel;
  try {
    duel = await api.get(`/duels/${encodeURIComponent(code)}`);
  } catch (e) {
    fill(box, h("p", { class: "error", role: "alert" }, e instanceof ApiError && e.status === 404 ? t("duelGone") : t("offline")));
    return null;
  }
  const title = h("h3", { id: "duel-title" }, t("duelResults"));
  if (!duel.results.length) {
    fill(box, title, h("p", {}, t("duelWaiting")));
    return duel;
  }
  const results = duel.results;
  const deals = Math.max(...results.map((r) => r.deals.length));
  const heads = [h("th", { scope: "col" }, t("deal")), ...results.map((r) => h("th", { scope: "col", class: "num" },
    h("span", { class: "nick" }, who(r)), r.challenger && !r.you ? h("span", { class: "note" }, ` (${t("challengerMark")})`) : null))];
  const rows = [];
  for (let k = 0; k < deals; k++) {
    const cells = results.map((r) => {
      const d = r.deals[k];
      if (!d) return h("td", { class: "num note" }, "—");
      const best = d.mp !== null && d.mp === Math.max(...results.map((o) => (o.deals[k] && o.deals[k].mp) ?? -1));
      return h("td", { class: best ? "num best" : "num" }, num(d.us),
        d.mp !== null ? h("span", { class: "mp" }, ` ${t("mpShort", { mp: num(d.mp) })}`) : null,
        best ? h("span", { class: "sr-only" }, ` ${t("bestOnDeal")}`) : null);
    });
    rows.push(h("tr", {}, h("th", { scope: "row" }, num(k + 1)), cells));
  }
  const foot = [
    h("tr", {}, h("th", { scope: "row" }, t("duelScore")), results.map((r) => h("td", { class: "num" },
      num(r.score, { useGrouping: false }), h("span", { class: "note" }, ` (${num(r.totals[0])}–${num(r.totals[1])})`)))),
    h("tr", {}, h("th", { scope: "row" }, t("duelMp")), results.map((r) => h("td", { class: "num" },
      r.mp === null ? "—" : `${num(r.mp)} %`))),
  ];
  const table = h("table", { class: "duel-table" },
    h("caption", {}, t("duelCaption")),
    h("thead", {}, h("tr", {}, heads)), h("tbody", {}, rows), h("tfoot", {}, foot));
  const analyses = h("p", { class: "links" });
  fill(box, title, h("div", { class: "duel-scroll" }, table), h("p", { class: "note" }, t("duelHow")), analyses);
  if (duel.rules === "muette-1") {
    const { analyseButton } = await import("./analysis.js");
    const section = document.getElementById("analysis");
    for (const r of results) {
      const base = `/duels/${encodeURIComponent(code)}/results/${r.result_id}`;
      analyses.append(analyseButton({ key: `duel:${code}:${r.result_id}`, ask: `${base}/analysis`, record: `${base}/record`,
        player: r.you ? null : r.nickname || t("aFriend"),
        title: r.you ? t("analysisTitle") : t("analysisOf", { nick: r.nickname || t("aFriend") }) },
      section, r.you ? t("analyseMine") : t("analyseEntry", { nick: r.nickname || t("aFriend") })), " ");
    }
  }
  return duel;
}

// The duel page: the challenger sees the link and the results; a friend plays the game (or
// resumes it), then sees the results at its end.
export async function openDuel(game) {
  const code = game.ctx.duel;
  const end = document.getElementById("end");
  let duel;
  try {
    duel = await api.get(`/duels/${encodeURIComponent(code)}`);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
    document.getElementById("play-area").hidden = true;
    setStatus(t("duelGone"));
    return;
  }
  // the results alone, without a table: for the challenger, or a friend whose run has gone
  const resultsOnly = async (heading, ...before) => {
    document.getElementById("play-area").hidden = true;
    const box = h("section", { class: "duel-results", "aria-labelledby": "duel-title" });
    fill(end, h("h2", { id: "end-title" }, heading), ...before, box);
    end.hidden = false;
    await showResults(box, code);
  };
  if (duel.you === "challenger") {
    return resultsOnly(t("yourChallenge"),
      linkBox({ url: new URL(duel.url, location.origin).href, id: "duel-link", label: t("challengeLink"), title: "Manille",
        text: t("challengeText", { score: num(duel.challenger.score, { useGrouping: false }) }) }),
      h("p", { class: "note" }, t("challengeHelp", { date: expiry(duel) })));
  }
  document.getElementById("mode-note").textContent = t("duelIntro", {
    nick: duel.challenger.nickname || t("aFriend"), score: num(duel.challenger.score, { useGrouping: false }) });
  if (duel.run_id) {
    let run;
    try {
      run = await api.get(`/runs/${duel.run_id}`);
    } catch (e) {
      // a run is kept a day after its last play: past that, what the duel kept of it is all there is
      if (!(e instanceof ApiError && e.status === 404)) throw e;
      if (duel.done) {
        return resultsOnly(t("duelFrom", { nick: duel.challenger.nickname || "",
          score: num(duel.challenger.score, { useGrouping: false }) }));
      }
      document.getElementById("play-area").hidden = true;
      setStatus(t("duelRunGone"));
      return;
    }
    return game.resume(run);
  }
  try {
    return game.begin(await api.post("/runs", { kind: "duel", duel: code }));
  } catch (e) {
    if (e.code !== "already_played" || !e.body.run_id) throw e;
    return game.resume(await api.get(`/runs/${e.body.run_id}`));
  }
}
