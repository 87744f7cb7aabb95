// An open day's hands on the /ops page: while the day is open, a submission's detail comes without
// them (the record, the oracle's choices: the day's secret).  An operator reads them on purpose,
// with a reason, which the audit log keeps with their name; the detail is then drawn again with them.
import { h } from "./dom.js";
import { Refused, ops } from "./opsapi.js";

export function handsSection(sub, page) {
  if (!sub.hands_sealed) return null;
  const { refused, openDetail } = page;
  const msg = h("p", { class: "ops-msg", role: "status", "aria-live": "polite" });
  const reason = h("textarea", { id: "ops-hands-reason", required: true, maxlength: "1000", rows: "2",
    "aria-describedby": "ops-hands-note" });
  const button = h("button", { type: "submit", class: "btn" }, "Show the hands");
  const f = h("form", { class: "hands-form", method: "post", "aria-label": "Read this game's hands" },
    h("p", { class: "field" }, h("label", { for: "ops-hands-reason" }, "Why (required, kept in the audit log)"), reason),
    h("p", { class: "ops-buttons" }, button), msg);
  f.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!reason.value.trim()) {
      msg.className = "ops-msg error";
      msg.textContent = "Give a reason first.";
      reason.focus();
      return;
    }
    button.disabled = true;
    let full;
    try {
      full = await ops("POST", `/submissions/${encodeURIComponent(sub.submission_id)}/hands`, { reason: reason.value.trim() });
    } catch (err) {
      button.disabled = false;
      if (err instanceof Refused) { refused(err.message); return; }
      msg.className = "ops-msg error";
      msg.textContent = `Reading the hands failed: ${err.message}`;
      return;
    }
    await openDetail(sub.submission_id, false, "The hands are shown; the audit log has your reading.", full);
  });
  return h("section", { class: "hands-sealed", "aria-labelledby": "ops-hands-title" },
    h("h3", { id: "ops-hands-title" }, "The day's hands"),
    h("p", { id: "ops-hands-note", class: "note" },
      "The day is open: its hands (the game's record, the oracle's choices) are its secret, left out here. "
      + "Reading them is an action of its own: the audit log keeps your name, the time and your reason."),
    f);
}
