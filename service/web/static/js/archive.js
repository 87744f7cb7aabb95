// The archive's days, as the boards have them: how many played each one and, on a device that has
// played, whether you did (your points and rank); a day no one played links no empty board.
import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { num, t } from "./i18n.js";

function describe(item, day) {
  const facts = [h("span", { class: "day-players" }, t("dayPlayers", { count: day.players }))];
  if ("me" in day && day.players) { // a day no one played needs no "you did not play it"
    facts.unshift(day.me
      ? h("span", { class: "day-mine played" }, t("dayMine", { score: num(day.me.score, { useGrouping: false }),
        rank: num(day.me.rank) }))
      : h("span", { class: "day-mine" }, t("dayNotMine")));
  }
  fill(item.querySelector(".day-facts"), facts.flatMap((f, i) => (i ? [" · ", f] : [f])));
  const board = item.querySelector(".board-link");
  if (board) board.hidden = day.players === 0;
}

export async function describeDays() {
  const items = new Map([...document.querySelectorAll(".days li[data-day]")].map((li) => [li.dataset.day, li]));
  if (!items.size) return;
  let answer;
  try {
    answer = await api.get(`/leaderboards/days?limit=${items.size}`);
  } catch (e) {
    console.warn(e); // the list still links every day
    return;
  }
  for (const day of answer.days) if (items.has(day.date)) describe(items.get(day.date), day);
}
