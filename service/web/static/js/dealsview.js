// The leaderboard's "Deals" view of a day: each deal's field (how many played it, their mean card
// points, a histogram) with the reader's own result on it; once the day's seed is published, each
// deal's traveller, and any result in it replayed beside the reader's own or the best.
// While the day is open the field is the server's to refuse (403 play_first) to a player whose
// own game of the day is not verified: said kindly, with the way to play.
import { api, ApiError } from "./api.js";
import { fill, h } from "./dom.js";
import { mpText } from "./fieldchart.js";
import { fieldDeals, fieldLegend, gameMpLine } from "./fielddeals.js";
import { num, t } from "./i18n.js";
import { ownSubmission } from "./mygames.js";

function clock(iso) {
  return new Intl.DateTimeFormat(document.documentElement.lang || "fr", { dateStyle: "medium", timeStyle: "short" })
    .format(new Date(iso));
}

// Why the field is not shown, and what to do about it.
function refusal(e, { day, today, challenge, again }) {
  if (!(e instanceof ApiError) || e.code !== "play_first") {
    return [h("p", { class: "error", role: "alert" }, t("boardError"))];
  }
  const status = e.body.submission_status;
  if (status === "queued" || status === "delayed") {
    return [h("p", { class: "field-refused", role: "status" }, t("fieldVerifying")),
      h("p", {}, h("button", { type: "button", class: "btn", onclick: again }, t("lookAgain")))];
  }
  if (day === today) {
    return [h("p", { class: "field-refused", role: "status" }, t("fieldPlayFirst")),
      h("p", { class: "links" }, h("a", { class: "btn primary", href: "/" }, t("playToday")))];
  }
  // a day that has closed but whose seed is not published yet (the half hour after midnight)
  const when = challenge && challenge.reveal_at;
  return [h("p", { class: "field-refused", role: "status" },
    when ? t("fieldAfterSeedAt", { time: clock(when) }) : t("fieldAfterSeed"))];
}

// The panes of a deal's movie: the reader's own play beside the chosen one; the chosen one beside
// the best if the reader did not play the deal; the reader's beside the best when the reader's
// is the one chosen.
function moviePanes(entry, best, yours) {
  const pane = (e) => ({ subId: e.submission_id, player: e.nickname,
    title: t(e.rank === 1 ? "movieBest" : "moviePlayer", { nick: e.nickname, us: num(e.us), mp: mpText(e.mp) }) });
  if (yours && entry.submission_id !== yours.subId) return [yours, pane(entry)];
  const shown = yours || pane(entry);
  return best && best.submission_id !== shown.subId ? [shown, pane(best)] : [shown];
}

export async function drawDeals(box, ctx) {
  const day = ctx.day;
  const list = h("div", { class: "deals-list", "aria-busy": "true" });
  const travel = h("section", { class: "traveller-box", hidden: true, "aria-labelledby": "traveller-title" });
  const movie = h("section", { class: "movie", hidden: true, "aria-labelledby": "movie-title" });
  const review = h("section", { id: "review", class: "review", hidden: true, "aria-labelledby": "review-title" });
  fill(box, h("p", { class: "note" }, t("dealsNote")), list, travel, movie, review);
  const [challenge, me] = await Promise.all([
    api.get(`/challenges/${day}`).catch(() => null),
    api.hasToken() ? api.get("/players/me").catch(() => null) : null,
  ]);
  if (!ctx.current()) return;
  const closed = Boolean(challenge && challenge.seed);
  const ownSub = ownSubmission(day) || (me && me.today.date === day ? me.today.submission_id : null);
  let field;
  try {
    field = await api.get(`/leaderboards/days/${day}/deals`);
  } catch (e) {
    if (!ctx.current()) return;
    list.removeAttribute("aria-busy");
    fill(list, refusal(e, { day, today: ctx.today, challenge, again: () => ctx.go({}) }));
    return;
  }
  const own = ownSub ? await api.get(`/submissions/${ownSub}/deals`).catch(() => null) : null;
  if (!ctx.current()) return;
  list.removeAttribute("aria-busy");
  if (!field.deals.length) {
    fill(list, h("p", {}, t(day < ctx.today ? "dayNobody" : "fieldEmpty")));
    return;
  }
  const ownRow = (k) => (own ? own.deals.find((d) => d.deal === k) || null : null);
  const mineOn = (k) => {
    const row = ownRow(k);
    return me || row ? { player: me ? me.player : null, submission: ownSub, us: row ? row.us : null } : null;
  };

  async function replay(k, entry) {
    const row = ownRow(k);
    const yours = row ? { subId: ownSub, player: null, title: t("movieYours", { us: num(row.us), mp: mpText(row.mp) }) } : null;
    let best = null;
    try {
      best = (await api.get(`/leaderboards/days/${day}/deals/${k}?limit=1`)).entries[0] || null;
    } catch { /* the chosen one alone */ }
    const { showMovie } = await import("./dealmovie.js");
    showMovie(movie, { deal: k, panes: moviePanes(entry, best, yours) });
  }

  async function traveller(k, focus = true) {
    ctx.setParam("deal", k);
    movie.hidden = true;
    const { showTraveller } = await import("./traveller.js");
    showTraveller(travel, { day, deal: k, mine: mineOn(k), focus, onReplay: (entry) => replay(k, entry) });
  }

  const actions = closed ? (k) => h("button", { type: "button", class: "btn",
    "aria-label": t("everyResultOf", { n: num(k + 1) }), onclick: () => traveller(k) }, t("everyResult")) : null;
  const reviewMine = closed && own ? h("button", { type: "button", class: "btn", onclick: async () => {
    const { reviewSubmission } = await import("./review.js");
    try {
      await reviewSubmission(review, { subId: ownSub, day });
    } catch {
      fill(review, h("p", { class: "error", role: "alert" }, t("reviewError")));
      review.hidden = false;
    }
  } }, t("reviewMine")) : null;
  fill(list,
    own ? h("p", { class: "field-game" }, h("strong", {}, gameMpLine(own)), reviewMine ? " " : null, reviewMine) : null,
    closed ? null : h("p", { class: "note" }, t("fieldOpenNote")),
    fieldLegend(),
    fieldDeals({ field, own, actions, level: 3 }));
  const asked = Number(ctx.param("deal"));
  if (closed && ctx.param("deal") !== null && field.deals.some((d) => d.deal === asked)) traveller(asked);
}
