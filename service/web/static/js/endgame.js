// After the last card: the preview and its reasoning, then (ranked) the nickname, the
// verification, the rank, the day's histogram, the streak, the countdown and sharing.
import { api, ApiError, sleep } from "./api.js";
import { announce } from "./announcer.js";
import { fill, h, store, touchOnly } from "./dom.js";
import { drawHistogram } from "./histogram.js";
import { num, t, teamName } from "./i18n.js";
import { rememberSubmission } from "./mygames.js";
import { beatenIn, standingWords } from "./standing.js";
import { shareOrCopy } from "./share.js";

const NICK_KEY = "manille.nickname";
const POLL_MS = 700;
const DELAYED_POLL_MS = 5000; // a delayed verification waits for a retry or for ops: minutes

function reasoning(deals, totals) {
  const list = h("ol", { class: "deal-lines" });
  for (const d of deals) {
    const team = d.scored[0] > 0 ? 0 : 1;
    const line = t("dealLine", { n: num(d.deal + 1), us: d.points[0], them: d.points[1], side: team,
      scored: d.scored[team] });
    list.append(h("li", {}, d.factor > 1 ? `${line} (${t("factor", { n: num(d.factor) })})` : line));
  }
  const score = 1000 + 10 * (totals[0] - totals[1]);
  const formula = h("p", { class: "formula" },
    t("formula", { us: num(totals[0]), them: num(totals[1]), score: num(score, { useGrouping: false }) }));
  return [list, formula];
}

// One line of symbols per deal: who took each trick, then the game points scored. No card.
function shareText(run, sub, total) {
  const lines = [`Manille ${run.date} · ${sub.score} · ${t("rankShort", { rank: num(sub.rank), total: num(total) })}`];
  let line = "";
  for (const ev of run.events || []) {
    if (ev.type === "trick") line += ev.team === "us" ? "🟩" : "🟥";
    if (ev.type === "deal_end") {
      const team = ev.scored[0] > 0 ? 0 : 1;
      lines.push(`${line} ${teamName(team)} +${ev.scored[team]}`);
      line = "";
    }
  }
  return lines.join("\n");
}

function countdown(closesAt) {
  const out = h("p", { class: "countdown" });
  const end = Date.parse(closesAt);
  const tick = () => {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    if (!left) {
      out.textContent = "";
      out.append(h("a", { href: "/" }, t("nextOpen")));
      clearInterval(timer);
      return;
    }
    const pad = (n) => String(n).padStart(2, "0");
    out.textContent = t("nextIn", { h: Math.floor(left / 3600), m: pad(Math.floor(left / 60) % 60), s: pad(left % 60) });
  };
  const timer = setInterval(tick, 1000);
  tick();
  return out;
}

// Each deal of the game beside everyone else's (the field), once the game is verified; drawn
// below the rank, without holding it up.
async function againstField(section, sub) {
  const { fieldDeals, fieldLegend, gameAgainstField, gameMpLine } = await import("./fielddeals.js");
  const got = await gameAgainstField(sub.submission_id, sub.date);
  if (!got) return;
  fill(section,
    h("h3", { id: "end-deals-title" }, t("yourDealsTitle")),
    h("p", { class: "field-game" }, gameMpLine(got.own)),
    fieldLegend(),
    fieldDeals({ field: got.field, own: got.own, level: 4 }),
    h("p", { class: "links" }, h("a", { href: `/leaderboard?view=deals&day=${sub.date}` }, t("allDealsLink"))));
  section.hidden = false;
}

async function verified(box, run, sub) {
  const [hist, me, challenge] = await Promise.all([
    api.get(`/leaderboards/days/${sub.date}/histogram`),
    api.get("/players/me").catch(() => null),
    api.get("/challenges/today").catch(() => null),
  ]);
  const total = Math.max(hist.total, sub.rank || 0);
  const copied = h("span", { class: "copied", role: "status" });
  const shareBtn = h("button", { type: "button", class: "btn", onclick: async () => {
    copied.textContent = await shareOrCopy({ title: "Manille", text: shareText(run, sub, total), url: `${location.origin}/` });
  } }, t("share"));
  const deals = h("section", { class: "end-deals", hidden: true, "aria-labelledby": "end-deals-title" });
  const standing = sub.rank ? standingWords({ rank: sub.rank, total, beaten: beatenIn(hist.bins, sub.score) }) : null;
  const rankText = standing ? standing.rank : t("notRankedYet");
  // the preview's "it counts once checked" is settled now
  const preview = document.querySelector("#end .preview");
  if (preview) preview.textContent = t("scoreIs", { score: num(sub.score, { useGrouping: false }) });
  fill(box,
    h("p", { class: "rank-line" }, rankText),
    h("p", {}, t("verifiedScore", { score: num(sub.score, { useGrouping: false }), nick: sub.nickname })),
    standing ? h("p", { class: "standing" }, standing.compare) : null,
    drawHistogram(hist, sub.score),
    me ? h("p", { class: "streak" }, t("streak", { count: me.streak })) : null,
    challenge && sub.date === challenge.date ? countdown(challenge.closes_at) : null,
    h("p", { class: "share" }, shareBtn, " ", copied),
    h("p", { class: "links" },
      h("a", { href: `/leaderboard?day=${sub.date}` }, t("seeBoard")), " · ",
      h("a", { href: "/free" }, t("tryFree"))),
    deals,
  );
  import("./leagueboard.js").then((m) => m.standings(box, sub.date)).catch(() => { /* the board says it */ });
  announce(rankText);
  await againstField(deals, sub);
}

async function follow(box, run, subId) {
  let sub;
  let shown = "";
  // queued, or delayed (its verification crashed and will run again: the game is kept), or at the
  // top of the day and checked before any board shows it (review, phase checking: minutes)
  const waiting = (status) => {
    if (status === shown) return;
    shown = status;
    box.replaceChildren(h("p", { class: "verifying", role: "status" },
      t({ delayed: "verifyDelayed", checking: "reviewChecking" }[status] || "verifying")),
    h("p", { class: "note" }, t("fieldOnceVerified")));
  };
  const checking = (s) => s.status === "review" && s.review && s.review.phase === "checking";
  waiting("queued");
  for (;;) {
    try {
      sub = await api.get(`/submissions/${subId}`);
      if (sub.status !== "queued" && sub.status !== "delayed" && !checking(sub)) break;
      waiting(checking(sub) ? "checking" : sub.status);
    } catch (e) {
      if (e instanceof ApiError && e.status < 500 && e.status !== 429) throw e;
    }
    await sleep(shown === "delayed" ? DELAYED_POLL_MS : POLL_MS);
  }
  if (sub.status === "rejected") {
    const why = sub.reason && (sub.reason.obligation || sub.reason.code || sub.reason.error);
    box.replaceChildren(h("p", { class: "error", role: "alert" }, t("rejected", { why: why || "?" })));
    return;
  }
  if (["held", "review", "disqualified", "restricted"].includes(sub.status)) {
    // valid cards, but off the boards: under review (at the top of the day: until a time it is
    // told), taken off by ops, or its player restricted; its deals still compare with the field,
    // as one more result that the field does not count
    const deals = h("section", { class: "end-deals", hidden: true, "aria-labelledby": "end-deals-title" });
    const until = sub.review && sub.review.until;
    const key = { held: "underReview", review: until ? "reviewUntil" : "underReview",
      disqualified: "disqualified", restricted: "restrictedGame" }[sub.status];
    const why = sub.reason && sub.reason.message;  // the reason ops chose to give, if any
    box.replaceChildren(h("p", { role: "status" }, t(key, { score: num(sub.score, { useGrouping: false }),
      until: until ? new Intl.DateTimeFormat(document.documentElement.lang || "fr",
        { dateStyle: "long", timeStyle: "short" }).format(new Date(until)) : "" }),
      why ? ` ${t("decisionWhy", { reason: why })}` : null), deals);
    await againstField(deals, sub);
    return;
  }
  await verified(box, run, sub);
}

// The server's refusal of a nickname, by code (README, "Nicknames"), in the page's language.
const NICK_ERRORS = {
  nickname_empty: "nickEmpty", nickname_too_long: "nickTooLong", nickname_control: "nickControl",
  nickname_invisible: "nickInvisible", nickname_unassigned: "nickUnassigned",
  nickname_mixed_script: "nickMixedScript", nickname_taken: "nicknameTaken",
  nickname_mark_first: "nickMarkFirst",
};

function nicknameForm(box, run, game) {
  // The server counts characters as a reader does (grapheme clusters) and decides; 96 code
  // units only stops a paste of a page.
  const input = h("input", { id: "nickname", name: "nickname", type: "text", maxlength: 96,
    autocomplete: "nickname", required: true, spellcheck: "false", "aria-describedby": "nick-help nick-error" });
  input.value = store.get(NICK_KEY) || (game.me && game.me.nickname) || "";
  const error = h("p", { id: "nick-error", class: "error", role: "alert" });
  const form = h("form", { class: "nick-form", novalidate: true },
    h("label", { for: "nickname" }, t("nickname")),
    h("div", { class: "row" }, input, h("button", { type: "submit", class: "btn primary" }, t("submitScore"))),
    h("p", { id: "nick-help", class: "note" }, t(touchOnly() ? "nickHelpTouch" : "nickHelp")),
    error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const nickname = input.value.trim();
    if (!nickname) {
      error.textContent = t("nickEmpty");
      input.focus();
      return;
    }
    form.querySelector("button").disabled = true;
    try {
      const answer = await api.post("/submissions", { run_id: run.run_id, nickname });
      store.set(NICK_KEY, nickname);
      rememberSubmission(run.date, answer.submission_id);
      await follow(box, run, answer.submission_id);
    } catch (err) {
      form.querySelector("button").disabled = false;
      error.textContent = NICK_ERRORS[err.code] ? t(NICK_ERRORS[err.code]) : t("errorGeneric", { message: err.message });
      input.focus();
    }
  });
  box.replaceChildren(form);
  input.focus();
}

// The number the deals came from, folded away under what it is for: a player checks with it that
// the cards were dealt fairly (docs/rules: the day's fingerprint, then its seed).
function seedCheck(seed) {
  return h("details", { class: "seed" }, h("summary", {}, t("seedCheck")),
    h("p", { class: "note" }, t("seedWhat")), h("p", {}, h("code", {}, seed)));
}

export async function showEnd(game, run) {
  const section = document.getElementById("end");
  let full = run;
  try {
    full = await api.get(`/runs/${run.run_id}`); // every event since the run opened, for sharing and review
  } catch { /* the short version will do */ }
  const result = full.result || run.result;
  const totals = result.totals;
  const won = result.winner === "us";
  const box = h("div", { class: "after" });
  const review = h("button", { type: "button", class: "btn", onclick: async () => {
    const { showReview } = await import("./review.js");
    showReview(full);
  } }, t("reviewGame"));
  const title = h("h2", { id: "end-title" }, t(won ? "endWon" : "endLost", { us: num(totals[0]), them: num(totals[1]) }));
  const parts = [title, h("p", { class: "preview" }, t(full.ranked ? "previewScore" : "scoreUnranked",
    { score: num(result.rank_score, { useGrouping: false }) })), ...reasoning(full.view.deals || [], totals)];
  if (full.ranked) parts.push(box);
  if (!full.ranked && full.kind !== "duel") { // a duel is played once: its end compares, below
    if (full.seed) parts.push(seedCheck(full.seed));
    parts.push(h("p", { class: "links" },
      h("button", { type: "button", class: "btn primary", onclick: () => {
        section.hidden = true;
        document.getElementById("review").hidden = true;
        game.restart();
      } }, t("playAgain")), " ",
      full.kind === "archive" ? h("a", { href: "/archive" }, t("otherDays")) : h("a", { href: "/" }, t("todayChallenge"))));
  }
  const [{ analysisOffer }, { duelParts }] = await Promise.all([import("./analysis.js"), import("./duel.js")]);
  parts.push(h("p", { class: "links" }, review, " ", analysisOffer(full)), ...duelParts(full));
  section.replaceChildren(...parts);
  section.hidden = false;
  section.scrollIntoView({ block: "start", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
  section.focus({ preventScroll: true });
  if (full.ranked) {
    if (full.submission_id) rememberSubmission(full.date, full.submission_id);
    if (full.submission_id) await follow(box, full, full.submission_id);
    else nicknameForm(box, full, game);
  }
}
