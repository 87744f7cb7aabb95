// The review queue on the /ops page: the games at the top of a day held for review (or being
// checked for it), the highest score first, each with what decides it at a glance (why, the
// check's z, the fast runs of its address); a row opens the game in the detail, where it is
// released or disqualified.  Shown above the day's list: ops see it first.
import { h } from "./dom.js";
import { ops } from "./opsapi.js";
import { time } from "./opsfacts.js";

export function reviewQueue(box, openDetail) {
  const count = h("p", { class: "ops-count", role: "status", "aria-live": "polite" });
  const rows = h("tbody", {});
  const table = h("table", { class: "ops-table" },
    h("caption", { class: "sr-only" }, "Games held for review, the highest score first"),
    h("thead", {}, h("tr", {}, ["Nickname", "Day", "Score", "Phase", "Ranked by", "Why", "z", "Fast runs"]
      .map((name) => h("th", { scope: "col", class: name === "Score" || name === "z" ? "num" : null }, name)))),
    rows);
  const wrap = h("div", { class: "ops-table-wrap", hidden: true }, table);
  box.replaceChildren(h("h2", { id: "ops-review-title" }, "Review queue"), count, wrap);

  async function load() {
    table.setAttribute("aria-busy", "true");
    let subs;
    try {
      subs = (await ops("GET", "/review")).submissions || [];
    } finally {
      table.removeAttribute("aria-busy");
    }
    box.hidden = false;
    wrap.hidden = !subs.length;  // an empty table is no list to read
    count.textContent = subs.length ? `${subs.length} game${subs.length === 1 ? "" : "s"} in review` : "No game in review.";
    rows.replaceChildren(...subs.map((s) => {
      const review = s.review || {};
      const z = s.hindsight ? s.hindsight.z : null;
      return h("tr", { "data-id": s.submission_id },
        h("th", { scope: "row", class: "nick" }, h("button", { type: "button", class: "linkish",
          "aria-label": `Open ${s.nickname || "(no nickname)"} (${s.submission_id})`,
          onclick: () => openDetail(s.submission_id, true) }, s.nickname || "(no nickname)")),
        h("td", {}, s.date),
        h("td", { class: "num" }, String(s.score)),
        h("td", {}, review.phase || "—"),
        h("td", {}, time(review.until)),
        h("td", {}, (review.why || []).join(", ") || "—"),
        h("td", { class: "num" }, z === null || z === undefined ? "—" : z.toFixed(2)),
        h("td", { class: "num" }, String((s.fast_runs || []).length)));
    }));
  }
  return { load };
}
