// The day's runs around a game on the /ops page: every ranked run of its day, from any token or
// address, that followed the game's cards and left them (where, which card), played them whole or
// stopped on them, before it was submitted, with its pace and client (GET …/submissions/{id}/runs).
// Read when asked for: on a crowded day it is hundreds of runs.
import { h } from "./dom.js";
import { Refused, ops } from "./opsapi.js";
import { cardEl } from "./opsreplay.js";
import { time } from "./opsfacts.js";

function where(run) {
  if (!run.left) return run.whole ? "played it whole" : `stopped on it after ${run.cards} cards`;
  const l = run.left;
  return [`deal ${l.deal}, trick ${l.trick} (card ${l.index}): `, cardEl(l.tried), " for ", cardEl(l.played),
    l.decision ? "" : " (forced)"];
}

const pace = (p) => (p.median_ms === null || p.median_ms === undefined ? "—" : `${p.median_ms} ms, ${p.seconds} s in all`);
const age = (s) => (s === null || s === undefined ? "—" : s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min`
  : s < 172800 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} days`);

function table(found) {
  const runs = found.runs || [];
  const earlier = found.earlier || [];
  return [
    h("p", {}, `${runs.length} run${runs.length === 1 ? "" : "s"} listed, the deepest first`
      + (found.followed_from ? `: those that followed at least ${found.followed_from} of its cards` : "")
      + ". Deals, tricks and cards count from 0, as in the API."),
    runs.length ? h("div", { class: "ops-table-wrap" }, h("table", { class: "evidence around" },
      h("caption", {}, "Runs around this game"),
      h("thead", {}, h("tr", {}, ["Run", "Followed", "Where it left", "Pace (median)", "Finished", "Submitted",
        "Opened", "Token's age", "Network", "User agent"].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, runs.map((r) => h("tr", {},
        h("th", { scope: "row" }, h("code", {}, r.run_id)), h("td", { class: "num" }, String(r.followed)),
        h("td", {}, where(r)), h("td", {}, pace(r.pace)), h("td", {}, r.finished ? "yes" : "no"),
        h("td", {}, r.submitted ? (r.submission_id ? h("code", {}, r.submission_id) : "yes") : "no"),
        h("td", {}, time(r.opened_at)), h("td", {}, age(r.token_age_seconds)),
        h("td", { class: "addr" }, r.network || "—"), h("td", {}, r.user_agent || "—")))))) : null,
    earlier.length ? h("p", { class: "note" }, "Not listed: " + earlier.map((e) =>
      `${e.runs} left at card ${e.index} (deal ${e.deal}, trick ${e.trick})`).join("; ") + ".") : null,
  ];
}

export function aroundSection(sub, refused) {
  const box = h("div", { "aria-live": "polite" });
  const button = h("button", { type: "button", class: "btn" }, "Show the runs around this game");
  button.addEventListener("click", async () => {
    button.disabled = true;
    box.setAttribute("aria-busy", "true");
    try {
      const found = await ops("GET", `/submissions/${encodeURIComponent(sub.submission_id)}/runs`);
      box.replaceChildren(...table(found).filter(Boolean));
      button.hidden = true;
    } catch (err) {
      button.disabled = false;
      if (err instanceof Refused) { refused(err.message); return; }
      box.replaceChildren(h("p", { class: "error", role: "alert" }, `Reading the runs failed: ${err.message}`));
    } finally {
      box.removeAttribute("aria-busy");
    }
  });
  return h("section", { "aria-labelledby": "ops-around-title" },
    h("h3", { id: "ops-around-title" }, "The day's runs around this game"),
    h("p", { class: "note" }, "Every run of the day, from any address or token, opened before this game was submitted, "
      + "that followed its cards and left them, played them whole or stopped on them."),
    h("p", { class: "ops-buttons" }, button), box);
}
