// The /ops page: the operator's token (opsapi.js), a day's submissions (sortable, filterable), one
// submission's detail with its flags' evidence (opsfacts.js), the client, the day's other runs of
// its address and token, an open day's hands read on purpose (opshands.js), disqualify/restore
// with a reason (opsdecision.js), and the replay viewer (opsreplay.js).  No API call is made
// before a token is given; a refused token (401/403) is forgotten and asked for again.  The form
// names no field and posts: its button, disabled in the page as served, is enabled here, so the
// token can only ever leave by this script, in a header.
import { hindsightSection } from "./opshindsight.js";
import { aroundSection } from "./opsaround.js";
import { fill, h } from "./dom.js";
import { handsSection } from "./opshands.js";
import { replayViewer } from "./opsreplay.js";
import { Refused, forgetToken, keepToken, ops, savedToken } from "./opsapi.js";
import { decisionSection } from "./opsdecision.js";
import { loadDesk } from "./opsdesk.js";
import { reviewQueue } from "./opsreview.js";
import { dl, evidence, flagBadge, flagBadges, runList, statusBadge, time } from "./opsfacts.js";

const PAGE = 1000;

export function startOps() {
  const body = document.body.dataset;
  const form = document.getElementById("ops-login");
  const tokenInput = document.getElementById("ops-token");
  const show = document.getElementById("ops-show");
  const dateInput = document.getElementById("ops-date");
  const loginMsg = document.getElementById("ops-login-msg");
  const forget = document.getElementById("ops-forget");
  const listBox = document.getElementById("ops-list");
  const listTitle = document.getElementById("ops-list-title");
  const rowsBox = document.getElementById("ops-rows");
  const count = document.getElementById("ops-count");
  const filterInput = document.getElementById("ops-filter");
  const statusSelect = document.getElementById("ops-status");
  const flaggedBox = document.getElementById("ops-flagged");
  const reload = document.getElementById("ops-reload");
  const detailBox = document.getElementById("ops-detail");
  const heads = [...document.querySelectorAll("#ops-table th[data-sort]")];

  const state = { day: body.today || dateInput.value, subs: [], sort: { key: "", dir: 1 }, open: null, loading: 0 };
  if (!dateInput.value) dateInput.value = state.day;

  function refused(message) {
    forgetToken();
    forget.hidden = true;
    listBox.hidden = true;
    reviewBox.hidden = true;
    detailBox.hidden = true;
    detailBox.replaceChildren();
    loginMsg.className = "ops-msg error";
    loginMsg.textContent = `Token refused${message ? ` (${message})` : ""}. Enter the ops token again.`;
    tokenInput.value = "";
    tokenInput.placeholder = "";
    tokenInput.required = true;
    tokenInput.focus();
  }

  function failed(where, e) {
    if (e instanceof Refused) { refused(e.message === "no token" ? "" : e.message); return true; }
    loginMsg.className = "ops-msg error";
    loginMsg.textContent = `${where} failed: ${e.message}`;
    return false;
  }

  // -- the list --------------------------------------------------------------

  const sortValue = {
    nickname: (s) => (s.nickname || "").toLowerCase(),
    score: (s) => (s.score === null || s.score === undefined ? -Infinity : s.score),
    status: (s) => s.status || "",
    flags: (s) => (s.flags || []).length,
    address: (s) => s.address || "",
    verified_at: (s) => s.verified_at || "",
  };

  function visible() {
    const text = filterInput.value.trim().toLowerCase();
    const status = statusSelect.value;
    let out = state.subs.filter((s) => (!text || (s.nickname || "").toLowerCase().includes(text)
        || (s.address || "").toLowerCase().includes(text))
      && (!status || s.status === status)
      && (!flaggedBox.checked || (s.flags || []).length > 0));
    const { key, dir } = state.sort;
    if (key) {
      const f = sortValue[key];
      out = out.map((s, i) => [s, i]).sort(([a, i], [b, j]) => {
        const x = f(a);
        const y = f(b);
        return (x < y ? -1 : x > y ? 1 : i - j) * (x === y ? 1 : dir);
      }).map(([s]) => s);
    }
    return out;
  }

  function renderList() {
    for (const th of heads) {
      if (th.dataset.sort === state.sort.key) th.setAttribute("aria-sort", state.sort.dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    }
    const shown = visible();
    count.textContent = `${shown.length} of ${state.subs.length} submission${state.subs.length === 1 ? "" : "s"} shown`;
    rowsBox.replaceChildren(...(shown.length ? shown.map((s) => {
      const current = state.open === s.submission_id;
      return h("tr", { "data-id": s.submission_id, class: current ? "open" : null, "aria-current": current ? "true" : null },
        h("th", { scope: "row", class: "nick" }, h("button", { type: "button", class: "linkish",
          "aria-label": `Open ${s.nickname || "(no nickname)"} (${s.submission_id})`,
          onclick: () => openDetail(s.submission_id, true) }, s.nickname || "(no nickname)")),
        h("td", { class: "num" }, s.score === null || s.score === undefined ? "—" : String(s.score)),
        h("td", {}, statusBadge(s.status)),
        h("td", {}, flagBadges(s.flags)),
        h("td", { class: "addr" }, s.address || "—"),
        h("td", {}, time(s.verified_at)));
    }) : [h("tr", {}, h("td", { colspan: "6", class: "note" }, state.subs.length ? "No submission matches the filters." : "No submission on this day."))]));
  }

  async function loadList() {
    const ticket = ++state.loading;
    rowsBox.closest("table").setAttribute("aria-busy", "true");
    const subs = [];
    try {
      for (let offset = 0; ; offset += PAGE) {
        const page = await ops("GET", `/days/${state.day}/submissions?limit=${PAGE}&offset=${offset}`);
        subs.push(...(page.submissions || []));
        if ((page.submissions || []).length < PAGE) break;
      }
    } catch (e) {
      rowsBox.closest("table").removeAttribute("aria-busy");
      failed("Loading the submissions", e);
      return false;
    }
    if (ticket !== state.loading) return false;
    rowsBox.closest("table").removeAttribute("aria-busy");
    review.load().catch((e) => failed("Loading the review queue", e));
    state.subs = subs;
    listTitle.textContent = `Submissions of ${state.day}`;
    listBox.hidden = false;
    forget.hidden = false;
    renderList();
    loadDesk(document.getElementById("ops-desk"), { openDetail, loadList, refused, failed });
    return true;
  }

  heads.forEach((th) => th.querySelector("button").addEventListener("click", () => {
    const key = th.dataset.sort;
    state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : (key === "score" || key === "flags" ? -1 : 1) };
    renderList();
  }));
  filterInput.addEventListener("input", renderList);
  statusSelect.addEventListener("change", renderList);
  flaggedBox.addEventListener("change", renderList);
  reload.addEventListener("click", () => loadList());
  const reviewBox = document.getElementById("ops-review");
  const review = reviewQueue(reviewBox, (id, focus) => openDetail(id, focus));

  // -- one submission ----------------------------------------------------------

  // ``given``: the submission as an action answered it (its hands read), drawn without asking again.
  async function openDetail(id, focus, notice = "", given = null) {
    state.open = id;
    renderList();
    detailBox.hidden = false;
    detailBox.setAttribute("aria-busy", "true");
    let sub = given;
    try {
      if (!sub) sub = await ops("GET", `/submissions/${encodeURIComponent(id)}`);
    } catch (e) {
      detailBox.removeAttribute("aria-busy");
      if (!failed("Loading the submission", e)) detailBox.replaceChildren(h("p", { class: "error", role: "alert" }, `Could not load ${id}: ${e.message}`));
      return;
    }
    if (state.open !== id) return;
    const title = h("h2", { id: "ops-detail-title", tabindex: "-1" }, `Submission of ${sub.nickname || "(no nickname)"}`);
    const flags = sub.flags || [];
    fill(detailBox,
      h("div", { class: "detail-head" }, title,
        h("button", { type: "button", class: "btn", onclick: () => closeDetail() }, "Close")),
      notice ? h("p", { class: "ops-msg ok", role: "status" }, notice) : null,
      dl([["Status", statusBadge(sub.status)], ["Score", sub.score], ["Submission", h("code", {}, sub.submission_id)],
        ["Run", sub.run_id ? h("code", {}, sub.run_id) : null], ["Player", sub.player ? h("code", {}, sub.player) : null],
        ["Day", sub.date], ["Run started", sub.run_created_at ? time(sub.run_created_at) : null],
        ["Run finished", sub.run_finished_at ? time(sub.run_finished_at) : null],
        ["Cards played", Array.isArray(sub.cards) ? sub.cards.length : null],
        ["Rejected because", sub.reason ? JSON.stringify(sub.reason) : null]]),
      h("section", { class: "flag-detail", "aria-labelledby": "ops-flags-title" },
        h("h3", { id: "ops-flags-title" }, `Flags (${flags.length})`),
        flags.length ? flags.map((f) => h("article", { class: "flag-card" },
          h("h4", {}, flagBadge(f), " ", f.description || ""), evidence(f)))
          : h("p", { class: "note" }, "No flag.")),
      h("section", { "aria-labelledby": "ops-client-title" },
        h("h3", { id: "ops-client-title" }, "Client"),
        dl([["Run address", sub.address || "—"], ["Run user agent", sub.user_agent || "—"],
          ["Submit address", sub.submit_address || "—"], ["Submit user agent", sub.submit_user_agent || "—"]])),
      h("section", { "aria-labelledby": "ops-runs-title" },
        h("h3", { id: "ops-runs-title" }, "The day's other runs"),
        sub.runs_kept_until ? h("p", { class: "note" }, sub.runs_expired
          ? ["They expired at ", time(sub.runs_kept_until), ": none is listed; the flags keep their evidence."]
          : ["Kept until ", time(sub.runs_kept_until), "."]) : null,
        h("h4", {}, `From the same address (${(sub.address_runs || []).length})`),
        runList(sub.address_runs, "none"),
        h("h4", {}, `From the same token (${(sub.token_runs || []).length})`),
        runList(sub.token_runs, "none")),
      aroundSection(sub, refused),
      hindsightSection(sub, (why) => ops("POST", `/submissions/${encodeURIComponent(sub.submission_id)}/analyse`,
        { reason: why })),
      decisionSection(sub, { refused, loadList, openDetail }),
      handsSection(sub, { refused, openDetail }),
      sub.hands_sealed ? null : replayViewer(sub.record));
    detailBox.removeAttribute("aria-busy");
    if (focus) title.focus();
  }

  function closeDetail() {
    const id = state.open;
    state.open = null;
    detailBox.hidden = true;
    detailBox.replaceChildren();
    renderList();
    const back = id && rowsBox.querySelector(`tr[data-id="${CSS.escape(id)}"] button`);
    if (back) back.focus();
  }

  // -- the token and the day ----------------------------------------------------

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const tk = tokenInput.value.trim() || savedToken();
    if (!tk) {
      loginMsg.className = "ops-msg error";
      loginMsg.textContent = "Enter the ops token.";
      tokenInput.focus();
      return;
    }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(dateInput.value)) {
      loginMsg.className = "ops-msg error";
      loginMsg.textContent = "Choose a day.";
      dateInput.focus();
      return;
    }
    keepToken(tk);
    tokenInput.value = "";
    tokenInput.placeholder = "token kept for this tab";
    tokenInput.required = false;
    state.day = dateInput.value;
    state.open = null;
    detailBox.hidden = true;
    detailBox.replaceChildren();
    loginMsg.className = "ops-msg";
    loginMsg.textContent = "Loading…";
    if (await loadList()) loginMsg.textContent = `Showing ${state.day}.`;
  });
  forget.addEventListener("click", () => {
    forgetToken();
    tokenInput.placeholder = "";
    tokenInput.required = true;
    listBox.hidden = true;
    reviewBox.hidden = true;
    detailBox.hidden = true;
    detailBox.replaceChildren();
    forget.hidden = true;
    loginMsg.className = "ops-msg";
    loginMsg.textContent = "Token forgotten.";
    tokenInput.focus();
  });

  // A token already given in this tab: show the day straight away.
  if (savedToken()) {
    tokenInput.placeholder = "token kept for this tab";
    tokenInput.required = false;
    loadList();
  }
  show.disabled = false; // the form is this script's now: the token leaves in a header, never a URL
}

if (document.body && document.body.dataset.page === "ops") startOps();
