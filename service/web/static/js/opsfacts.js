// A submission's facts as the /ops page draws them, in its list and in its detail: times, status
// and flag badges, fact lists, run lists, and each flag's evidence.
import { togetherFigures } from "./opshindsight.js";
import { h } from "./dom.js";
import { cardEl } from "./opsreplay.js";

const STATUSES = ["verified", "held", "review", "disqualified", "restricted", "rejected", "queued", "delayed"];

export function time(iso) {
  if (!iso) return h("span", { class: "note" }, "—");
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return h("span", {}, String(iso));
  return h("time", { datetime: iso, title: iso }, d.toLocaleString("en-GB", { dateStyle: "short", timeStyle: "medium" }));
}

export const statusBadge = (status) => h("span", { class: `status status-${STATUSES.includes(status) ? status : "other"}` }, status || "—");
// A flag's badge, its description (the API's, one sentence) as its title
export const flagBadge = (f) => h("span", { class: "flag", title: f.description || null }, f.code);
export const flagBadges = (flags) => (flags && flags.length
  ? h("ul", { class: "flags", "aria-label": "Flags" }, flags.map((f) => h("li", {}, flagBadge(f))))
  : h("span", { class: "note" }, "none"));

export function dl(pairs) {
  return h("dl", { class: "facts" }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, v instanceof Node ? v : String(v)))));
}

export function runList(ids, empty) {
  if (!ids || !ids.length) return h("p", { class: "note" }, empty);
  return h("ul", { class: "runs" }, ids.map((id) => h("li", {}, h("code", {}, id))));
}

// One flag's evidence, readably; unknown codes or fields fall back to their key: value pairs.
export function evidence(flag) {
  const e = flag.evidence || {};
  switch (flag.code) {
    case "explored": {
      const branches = Array.isArray(e.branches) ? e.branches : [];
      return [
        dl([["Decision points", e.points], ["Runs that branched off", e.runs], ["Deepest point (play index)", e.deepest]]),
        branches.length ? h("table", { class: "evidence" },
          h("caption", {}, "Branch points"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, "Index"),
            h("th", { scope: "col" }, "Card played"), h("th", { scope: "col" }, "Cards tried by other runs (runs)"))),
          h("tbody", {}, branches.map((b) => h("tr", {},
            h("td", { class: "num" }, String(b.index)), h("td", {}, cardEl(b.played)),
            h("td", {}, h("ul", { class: "tried" }, Object.entries(b.tried || {}).map(([card, n]) =>
              h("li", {}, cardEl(card), ` × ${n}`)))))))) : null,
      ];
    }
    case "probed": {
      const branches = Array.isArray(e.branches) ? e.branches : [];
      return [
        dl([["Points", e.points], ["Fast throwaway runs", e.runs],
          ["A run is fast below", e.median_ms_below !== undefined ? `${e.median_ms_below} ms between cards` : null],
          ["Runs that played the whole line fast", Array.isArray(e.whole) ? e.whole.length : null]]),
        branches.length ? h("table", { class: "evidence" },
          h("caption", {}, "Decisions where fast throwaway runs left this game"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, "Index"),
            h("th", { scope: "col" }, "Card played"), h("th", { scope: "col" }, "Cards tried (runs)"),
            h("th", { scope: "col", class: "num" }, "Runs that left there"),
            h("th", { scope: "col", class: "num" }, "Chance"))),
          h("tbody", {}, branches.map((b) => h("tr", {},
            h("td", { class: "num" }, String(b.index)), h("td", {}, cardEl(b.played)),
            h("td", {}, h("ul", { class: "tried" }, Object.entries(b.tried || {}).map(([card, n]) =>
              h("li", {}, cardEl(card), ` × ${n}`)))),
            h("td", { class: "num" }, String(b.left_there)), h("td", { class: "num" }, String(b.p)))))) : null,
      ];
    }
    case "oracle": {
      const choices = Array.isArray(e.choices) ? e.choices : [];
      return [
        dl([["Decisive decisions", e.decisive], ["Agreed with the exact solver", e.agreed],
          ["Rate", e.rate], ["expert-1's rate, same seat and day", e.expert_rate],
          ["Counted from trick (from 0)", e.from_trick],
          ["The solver's choices", e.choices_sealed ? "sealed while the day is open (Show the hands)" : null]]),
        choices.length ? h("table", { class: "evidence" },
          h("caption", {}, "Decisive decisions (deals and tricks from 0)"),
          h("thead", {}, h("tr", {}, ["Deal", "Trick", "Played", "Solver's best", "Agreed"].map((x) =>
            h("th", { scope: "col" }, x)))),
          h("tbody", {}, choices.map((c) => h("tr", {},
            h("td", { class: "num" }, String(c.deal)), h("td", { class: "num" }, String(c.trick)),
            h("td", {}, cardEl(c.card)), h("td", {}, h("ul", { class: "tried" }, (c.oracle || []).map((x) =>
              h("li", {}, cardEl(x))))), h("td", {}, c.agreed ? "yes" : "no"))))) : null,
      ];
    }
    case "many_runs":
      return [dl([["Address", e.address], ["Ranked runs from it", e.runs]]),
        h("h5", {}, "Other runs from that address"), runList(e.other_runs, "none listed")];
    case "speed":
      return dl([["Median between cards", e.median_ms !== undefined ? `${e.median_ms} ms` : null],
        ["Fastest", e.fastest_ms !== undefined ? `${e.fastest_ms} ms` : null], ["Cards", e.cards],
        ["Whole game", e.game_seconds !== undefined ? `${e.game_seconds} s` : null]]);
    case "outlier":
      return dl([["Score", e.score], ["Robust z", e.z], ["Day's median", e.median], ["Spread", e.spread],
        ["Other scores", e.scores], ["Best other score", e.best_other]]);
    case "hindsight_player":
      return togetherFigures(e);
    default:
      return dl(Object.entries(e).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : v]));
  }
}
