// Asking for a finished game's card-by-card analysis and following it: the offer (a button, or a
// plain note saying why not yet), the progress bar while the analyst works, then the view.
// The server decides everything: which game may be analysed, and every value shown.
import { api, ApiError, isTransient, limitedFor, sleep } from "./api.js";
import { fill, h, needStyles } from "./dom.js";
import { num, t } from "./i18n.js";

const POLL_MS = 500;
const ANALYSED_RULES = ["muette-1"];
const following = new Map(); // key of the game -> the promise of its view, so a second click re-uses it

// The view's stylesheets, fetched only when an analysis is asked for (a first visit does not pay
// them); the cards' own where the page has none.
const loadStyle = () => needStyles("/static/css/cards.css", "/static/css/analysis.css");

function clock(iso) {
  const when = new Date(iso);
  const sameDay = when.toDateString() === new Date().toDateString();
  return new Intl.DateTimeFormat(document.documentElement.lang || "fr",
    sameDay ? { timeStyle: "short" } : { dateStyle: "medium", timeStyle: "short" }).format(when);
}

// The offer for a finished run of the table page: the button, or a note saying why not (yet).
export function analysisOffer(run, section = document.getElementById("analysis")) {
  if (!ANALYSED_RULES.includes(run.rules || "muette-1")) {
    return h("p", { class: "note an-offer" }, t("analysisUnsupported"));
  }
  if (run.ranked && !run.seed) {
    const note = h("p", { class: "note an-offer an-sealed" }, t("analysisAfterDay"));
    api.get(`/challenges/${run.date}`).then((c) => {
      if (c && c.reveal_at) note.textContent = t("analysisAfterDayAt", { time: clock(c.reveal_at) });
    }).catch(() => { /* the plain sentence stays */ });
    return note;
  }
  return analyseButton({
    key: `run:${run.run_id}`, ask: `/runs/${run.run_id}/analysis`, record: `/runs/${run.run_id}/record`,
  }, section);
}

// A button that opens the analysis of `source` ({key, ask, record, title?}) in `section`.
export function analyseButton(source, section, label = t("analyseGame"), extra = {}) {
  return h("button", { type: "button", class: "btn an-ask", ...extra,
    onclick: () => openAnalysis(source, section) }, label);
}

function explain(e) {
  if (!(e instanceof ApiError)) return t("offline");
  const limited = limitedFor(e);
  if (limited !== null) return t("analysisTooMany", { minutes: num(Math.max(1, Math.ceil(limited / 60))) });
  if (e.code === "day_open") {
    return e.body.reveal_at ? t("analysisAfterDayAt", { time: clock(e.body.reveal_at) }) : t("analysisAfterDay");
  }
  if (e.code === "analysis_unsupported") return t("analysisUnsupported");
  if (e.code === "run_not_finished") return t("analysisNotOver");
  return t("errorGeneric", { message: e.message });
}

function progressBar() {
  const bar = h("div", { class: "an-bar", role: "progressbar", "aria-label": t("analysisProgressLabel"),
    "aria-valuemin": 0, "aria-valuemax": 1, "aria-valuenow": 0 }, h("span", { class: "an-bar-fill" }));
  const text = h("p", { class: "an-state", role: "status" }, t("analysisQueued"));
  const set = (status, done, total) => {
    bar.setAttribute("aria-valuemax", String(Math.max(1, total)));
    bar.setAttribute("aria-valuenow", String(Math.min(done, Math.max(1, total))));
    bar.setAttribute("aria-valuetext", total ? t("analysisProgress", { done: num(done), total: num(total) })
      : t(status === "queued" ? "analysisQueued" : "analysisStarting"));
    bar.firstChild.style.width = `${total ? Math.round((100 * done) / total) : 0}%`;
    const line = status === "queued" ? t("analysisQueued")
      : total ? t("analysisProgress", { done: num(done), total: num(total) }) : t("analysisStarting");
    if (text.textContent !== line) text.textContent = line;
  };
  return { el: h("div", { class: "an-progress" }, bar, text), set, text };
}

// POSTs (the same game gives the same analysis, counted once), then polls it until it is done.
async function follow(source, progress) {
  const asked = await api.post(source.ask);
  let got = { status: asked.status, progress: asked.progress, analysis: null, error: null };
  let delay = POLL_MS;
  for (;;) {
    progress.set(got.status, got.progress.done, got.progress.total);
    if (got.status === "finished" && got.analysis) return got;
    if (got.status === "failed") throw Object.assign(new Error("failed"), { failed: got.error || {} });
    await sleep(delay);
    try {
      got = await api.get(asked.status_url.replace(/^\/api\/v1/, ""));
      delay = POLL_MS;
    } catch (e) {
      if (!isTransient(e)) throw e;
      progress.text.textContent = t("reconnecting");
      delay = Math.min(delay * 2, 8000);
    }
  }
}

export async function openAnalysis(source, section) {
  section.hidden = false;
  if (following.has(source.key) && section.dataset.key === source.key) {
    section.scrollIntoView({ block: "start" });
    section.querySelector("h2").focus({ preventScroll: true });
    return following.get(source.key);
  }
  section.dataset.key = source.key;
  const title = h("h2", { id: "analysis-title", tabindex: "-1" }, source.title || t("analysisTitle"));
  const body = h("div", { class: "an-body", "aria-busy": "true" });
  fill(section, title, body);
  await loadStyle();
  const progress = progressBar();
  body.replaceChildren(progress.el);
  section.scrollIntoView({ block: "start" });
  title.focus({ preventScroll: true });
  const job = (async () => {
    try {
      const [got, record, { showAnalysis }] = await Promise.all([
        follow(source, progress),
        api.get(source.record).catch(() => null), // public exactly when the analysis is; optional
        import("./analysisview.js"),
      ]);
      if (section.dataset.key !== source.key) return;
      body.removeAttribute("aria-busy");
      showAnalysis(body, got.analysis, record, { player: source.player });
      // it opens on its summary: the top of the analysis, unless the reader went elsewhere meanwhile
      if ([title, document.body].includes(document.activeElement)) section.scrollIntoView({ block: "start" });
    } catch (e) {
      following.delete(source.key);
      if (section.dataset.key !== source.key) return;
      console.warn(e);
      body.removeAttribute("aria-busy");
      const message = e.failed ? t("analysisFailed", { message: e.failed.message || e.failed.error || "?" }) : explain(e);
      const again = !(e instanceof ApiError) || e.failed || limitedFor(e) !== null || isTransient(e);
      body.replaceChildren(h("p", { class: "error", role: "alert" }, message),
        again ? h("p", {}, analyseButton(source, section, t("analysisRetry"))) : null);
    }
  })();
  following.set(source.key, job);
  return job;
}
