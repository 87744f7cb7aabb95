// The decision on one submission on the /ops page: disqualify or restore, with a reason (kept in
// the audit log).  The page lends its own refused (a refused token is forgotten), loadList and
// openDetail (the list and the detail then show the decision taken).
import { h } from "./dom.js";
import { Refused, ops } from "./opsapi.js";

export function decisionSection(sub, page) {
  const { refused, loadList, openDetail } = page;
  const canDisqualify = ["verified", "held", "review", "restricted"].includes(sub.status);
  const canRestore = sub.status === "disqualified" || sub.status === "held";
  const canRelease = sub.status === "review";  // a game at the top held for review: it ranks
  const box = h("section", { class: "actions", "aria-labelledby": "ops-actions-title" },
    h("h3", { id: "ops-actions-title" }, "Decision"));
  if (sub.decision) box.append(h("p", {}, `Last decision: ${sub.decision}`, sub.decision_reason ? ` — “${sub.decision_reason}”` : "",
    sub.public_reason ? ` (the player reads: “${sub.public_reason}”)` : ""));
  if (sub.review && sub.review.until && canRelease) {
    box.append(h("p", {}, `In review (${sub.review.phase}): ranked with no action at ${sub.review.until}`,
      sub.review.why && sub.review.why.length ? `; held for ${sub.review.why.join(", ")}` : ""));
  }
  if (!canDisqualify && !canRestore) {
    box.append(h("p", { class: "note" }, `A ${sub.status} submission can be neither disqualified nor restored.`));
    return box;
  }
  const msg = h("p", { class: "ops-msg", role: "status", "aria-live": "polite" });
  const reason = h("textarea", { id: "ops-reason", name: "reason", required: true, maxlength: "1000", rows: "3",
    "aria-describedby": "ops-reason-note" });
  const told = canDisqualify ? h("textarea", { id: "ops-public-reason", name: "public_reason", maxlength: "1000", rows: "2" }) : null;
  const buttons = [];
  if (canDisqualify) buttons.push(h("button", { type: "submit", class: "btn danger", value: "disqualify" }, "Disqualify"));
  if (canRestore) buttons.push(h("button", { type: "submit", class: "btn", value: "restore" }, "Restore"));
  if (canRelease) buttons.push(h("button", { type: "submit", class: "btn", value: "release" }, "Release"));
  const f = h("form", { class: "decision", "aria-label": "Decision on this submission" },
    h("p", { class: "field" }, h("label", { for: "ops-reason" }, "Reason (required, kept in the audit log)"), reason),
    told ? h("p", { class: "field" }, h("label", { for: "ops-public-reason" },
      "What the player is told, if disqualified (optional)"), told) : null,
    h("p", { id: "ops-reason-note", class: "note" },
      canDisqualify ? "Disqualify takes the game off every board. " : "",
      canRestore ? "Restore puts it (back) on the boards." : "",
      canRelease ? "Release ranks it on every board now." : ""),
    h("p", { class: "ops-buttons" }, buttons), msg);
  f.addEventListener("submit", async (e) => {
    e.preventDefault();
    const action = e.submitter && e.submitter.value;
    if (!action || !reason.value.trim()) {
      msg.className = "ops-msg error";
      msg.textContent = "Give a reason first.";
      reason.focus();
      return;
    }
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const body = { reason: reason.value.trim() };
      if (action === "disqualify" && told.value.trim()) body.public_reason = told.value.trim();
      await ops("POST", `/submissions/${encodeURIComponent(sub.submission_id)}/${action}`, body);
    } catch (err) {
      buttons.forEach((b) => { b.disabled = false; });
      if (err instanceof Refused) { refused(err.message); return; }
      msg.className = "ops-msg error";
      msg.textContent = `${action} failed: ${err.message}`;
      return;
    }
    await loadList();
    await openDetail(sub.submission_id, false, `Done: ${{ disqualify: "disqualified", restore: "restored", release: "released" }[action]}.`);
  });
  box.append(f);
  return box;
}
