// The operator's desk on the /ops page: the players' reports, newest first, each with its game's
// status and flags (the game opens in the detail), and the appeals waiting for an answer, answered
// here: upheld, or granted (the restriction lifted, the game restored).  The server refuses an
// answer by the operator who decided, or by a reviewer; the page says why.
import { fill, h } from "./dom.js";
import { Refused, ops } from "./opsapi.js";
import { flagBadges, statusBadge, time } from "./opsfacts.js";

function reportsTable(reports, openDetail) {
  if (!reports.length) return h("p", { class: "note" }, "No report.");
  return h("div", { class: "table-wrap" }, h("table", { class: "ops-table", "aria-labelledby": "ops-reports-title" },
    h("thead", {}, h("tr", {}, ["When", "Game", "Status", "Flags", "Reports", "Reason"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, reports.map((r) => {
      const game = r.game || {};
      return h("tr", { "data-report": r.report_id },
        h("td", {}, time(r.at)),
        h("th", { scope: "row" }, h("button", { type: "button", class: "linkish",
          "aria-label": `Open the reported game of ${game.nickname || r.player} (${r.submission_id})`,
          onclick: () => openDetail(r.submission_id, true) }, game.nickname || r.player)),
        h("td", {}, statusBadge(game.status)),
        h("td", {}, flagBadges(game.flags)),
        h("td", { class: "num" }, String(r.reports_on_game)),
        h("td", {}, r.reason));
    }))));
}

function appealItem(a, page) {
  const id = `appeal-${a.appeal_id}`;
  const msg = h("p", { class: "ops-msg", role: "status" });
  const text = h("textarea", { id: `${id}-text`, rows: "3", maxlength: "4000", required: true });
  const choice = (value, label) => h("label", { class: "check" },
    h("input", { type: "radio", name: `${id}-decision`, value, required: true }), ` ${label}`);
  const button = h("button", { type: "submit", class: "btn" }, "Answer");
  const form = h("form", { class: "decision", novalidate: true, "aria-label": `Answer the appeal of ${a.player}` },
    h("fieldset", {}, h("legend", {}, "Decision"),
      choice("upheld", "Upheld: the decision stands"),
      choice("granted", a.kind === "restriction" ? "Granted: lift the restriction" : "Granted: restore the game")),
    h("p", { class: "field" }, h("label", { for: `${id}-text` }, "Answer (the player reads it)"), text),
    h("p", { class: "ops-buttons" }, button), msg);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const picked = form.querySelector("input[type=radio]:checked");
    if (!picked || !text.value.trim()) {
      msg.className = "ops-msg error";
      msg.textContent = "Choose a decision and write the answer first.";
      (picked ? text : form.querySelector("input[type=radio]")).focus();
      return;
    }
    button.disabled = true;
    try {
      await ops("POST", `/appeals/${encodeURIComponent(a.appeal_id)}/answer`, { decision: picked.value, text: text.value.trim() });
    } catch (err) {
      button.disabled = false;
      if (err instanceof Refused) { page.refused(err.message); return; }
      msg.className = "ops-msg error";
      msg.textContent = `The answer failed: ${err.message}`;
      return;
    }
    await page.loadList();
    await loadDesk(page.deskBox, page, `Appeal of ${a.player} answered: ${picked.value}.`);
  });
  const about = a.kind === "restriction"
    ? ["Restriction", a.restricted ? `: “${a.restricted.reason}”` : " (no longer in force)"]
    : ["Disqualified game ", a.game ? statusBadge(a.game.status) : null, " ",
      a.submission_id ? h("button", { type: "button", class: "linkish", onclick: () => page.openDetail(a.submission_id, true) },
        a.submission_id) : null];
  return h("article", { class: "flag-card appeal", id },
    h("h4", {}, "Appeal of ", h("code", {}, a.player), " · ", time(a.at)),
    h("p", {}, ...about),
    h("p", {}, `Decided by ${a.decided_by || "—"}: another operator answers.`),
    h("blockquote", {}, a.text),
    form);
}

// The reports and the open appeals drawn in ``box``; ``page`` lends the page's openDetail,
// loadList, refused and failed.  ``notice``: what was just done.
export async function loadDesk(box, page, notice = "") {
  page.deskBox = box;
  box.setAttribute("aria-busy", "true");
  let reports;
  let appeals;
  try {
    [reports, appeals] = await Promise.all([ops("GET", "/reports?limit=100"), ops("GET", "/appeals?status=open&limit=100")]);
  } catch (e) {
    box.removeAttribute("aria-busy");
    page.failed("Loading the reports and appeals", e);
    return;
  }
  fill(box,
    h("h2", { id: "ops-desk-title" }, "Reports and appeals"),
    notice ? h("p", { class: "ops-msg ok", role: "status" }, notice) : null,
    h("h3", { id: "ops-reports-title" }, `Reports (${reports.total})`),
    reportsTable(reports.reports, page.openDetail),
    h("h3", { id: "ops-appeals-title" }, `Open appeals (${appeals.appeals.length})`),
    appeals.appeals.length ? appeals.appeals.map((a) => appealItem(a, page)) : h("p", { class: "note" }, "No open appeal."));
  box.hidden = false;
  box.removeAttribute("aria-busy");
}
