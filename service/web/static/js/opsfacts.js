// A submission's facts as the /ops page draws them, in its list and in its detail: times, status
// and flag badges, fact lists, run lists, and each flag's evidence.
import { togetherFigures } from "./opshindsight.js";
import { h } from "./dom.js";
import { cardEl } from "./opsreplay.js";

const STATUSES = ["verified", "held", "review", "disqualified", "restricted", "rejected", "queued", "delayed"];
export const FLAG_HELP = {
  explored: "Other runs of the day followed this game and branched off at its decision points",
  many_runs: "Many ranked runs of the day were opened from this address",
  speed: "The player's cards came faster than a person reads the table",
  outlier: "A score far above the day's distribution",
  hindsight: "The cards turned out better with hindsight than what the seat knew could expect",
  hindsight_player: "The player's recent games, together, turned out better with hindsight than their seats could expect",
};

export function time(iso) {
  if (!iso) return h("span", { class: "note" }, "—");
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return h("span", {}, String(iso));
  return h("time", { datetime: iso, title: iso }, d.toLocaleString("en-GB", { dateStyle: "short", timeStyle: "medium" }));
}

export const statusBadge = (status) => h("span", { class: `status status-${STATUSES.includes(status) ? status : "other"}` }, status || "—");
export const flagBadge = (code) => h("span", { class: "flag", title: FLAG_HELP[code] || null }, code);
export const flagBadges = (flags) => (flags && flags.length
  ? h("ul", { class: "flags", "aria-label": "Flags" }, flags.map((f) => h("li", {}, flagBadge(f.code))))
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
