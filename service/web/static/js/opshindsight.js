// The hidden-information check of one submission for ops: its state, its figures (z, card points
// gained over the seat's best cards), the decisions that drive it, and a button to run it now.
import { h } from "./dom.js";

function cardText(c) {
  return h("code", { class: "card-code" }, String(c));
}

function figures(e) {
  const rows = [
    ["z-score", `${e.z} (flags at ${e.z_threshold} or more)`],
    ["Card points gained over the bot's cards, beyond what the seat could expect", `${e.gain} (flags at ${e.gain_threshold} or more)`],
    ["Null variance", e.var],
    ["Decisions counted (from trick " + e.from_trick + " of each deal, counted from 0)", e.decisions],
    ["Departures from the bot's card (expert-1, the baseline)", e.departures],
  ];
  return h("dl", { class: "facts" }, rows.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, String(v)))));
}

function drivers(e) {
  const list = Array.isArray(e.drivers) ? e.drivers : [];
  if (!list.length) return h("p", { class: "note" }, "No departure from the bot's card.");
  return h("table", { class: "evidence" },
    h("caption", {}, "The decisions that drive it (deals and tricks from 0)"),
    h("thead", {}, h("tr", {}, ["Deal", "Trick", "Played", "Bot's card", "Gain"].map((x) =>
      h("th", { scope: "col" }, x)))),
    h("tbody", {}, list.map((d) => h("tr", {},
      h("td", { class: "num" }, String(d.deal)), h("td", { class: "num" }, String(d.trick)),
      h("td", {}, cardText(d.played)), h("td", {}, cardText(d.baseline || d.seat_best)), h("td", { class: "num" }, String(d.gain))))));
}

// The player's recent checked games together: the combined figures and each game's.
export function togetherFigures(e) {
  const games = Array.isArray(e.games) ? e.games : [];
  return [
    h("dl", { class: "facts" }, [
      ["z-score of the games together", `${e.z} (flags at ${e.z_threshold} or more)`],
      ["Card points gained, together", `${e.gain} (flags at ${e.gain_threshold} or more)`],
      ["Games", games.length],
    ].map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, String(v))))),
    h("table", { class: "evidence" },
      h("caption", {}, "The player's checked games, newest first"),
      h("thead", {}, h("tr", {}, ["Day", "Submission", "z", "Gain"].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, games.map((g) => h("tr", {},
        h("td", {}, String(g.date)), h("td", {}, h("code", {}, String(g.submission_id))),
        h("td", { class: "num" }, String(g.z)), h("td", { class: "num" }, String(g.gain)))))),
  ];
}

// ``run(reason)`` posts the request; ``sub`` is the ops detail of the submission.
export function hindsightSection(sub, run) {
  const box = h("section", { class: "hindsight", "aria-labelledby": "ops-hindsight-title" },
    h("h3", { id: "ops-hindsight-title" }, "Hidden-information check"),
    h("p", { class: "note" }, "Did the cards turn out better with hindsight than what the seat knew could expect? "
      + "Near 0 for anyone who did not see the hands, lucky or not."));
  const state = sub.hindsight_analysis;
  if (sub.hindsight) box.append(figures(sub.hindsight), drivers(sub.hindsight));
  if (sub.hindsight_player) {
    box.append(h("h4", {}, "This player's recent games together"), ...togetherFigures(sub.hindsight_player));
  }
  else if (state) {
    const p = state.progress || {};
    box.append(h("p", { role: "status" }, `Analysis ${state.status}`,
      p.total ? ` (${p.done} of ${p.total} decisions)` : "", state.error ? `: ${state.error.message}` : ""));
  } else box.append(h("p", { class: "note" }, "Not run: the game's score did not call for it."));
  if (!["verified", "held", "disqualified"].includes(sub.status)) return box;
  const msg = h("p", { class: "ops-msg", role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "btn" }, sub.hindsight ? "Run it again" : "Run the check now");
  button.addEventListener("click", async () => {
    button.disabled = true;
    msg.textContent = "Queued…";
    try {
      await run("asked from the ops page");
      msg.textContent = "Queued: reopen the submission in a few seconds for the figures.";
    } catch (err) {
      msg.className = "ops-msg error";
      msg.textContent = `The check could not be queued: ${err.message}`;
      button.disabled = false;
    }
  });
  box.append(h("p", {}, button), msg);
  return box;
}
