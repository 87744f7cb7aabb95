// A player's profile (/players/{nickname}): the rating now, its history as a plot (and as a
// table), days played, streak and best days. Public: the same for everyone.
import { api, ApiError } from "./api.js";
import { fill, h } from "./dom.js";
import { longDate, num, t } from "./i18n.js";
import { ratingPlot } from "./ratingplot.js";
import { changeText, ratingText } from "./ratingtext.js";

function facts(p) {
  const item = (label, value) => [h("dt", {}, label), h("dd", {}, value)];
  return h("dl", { class: "profile-facts" },
    item(t("profileRating"), ratingText(p.rating)),
    item(t("profileDaysPlayed"), num(p.days_played)),
    item(t("profileStreak"), t("streakDays", { count: p.streak, n: num(p.streak) })));
}

function historyTable(history) {
  return h("table", { class: "board rating-history" },
    h("caption", {}, t("historyCaption")),
    h("thead", {}, h("tr", {}, [t("colDate"), t("colRating"), t("colChange"), t("colMp")].map((x, i) =>
      h("th", { scope: "col", class: i ? "num" : null }, x)))),
    h("tbody", {}, [...history].reverse().map((p) => h("tr", {},
      h("td", {}, longDate(p.date)), h("td", { class: "num" }, t("ratingValue", { value: num(p.value), dev: num(p.deviation) })),
      h("td", { class: "num" }, changeText(p.change)), h("td", { class: "num" }, num(p.mp, { maximumFractionDigits: 1 }))))));
}

function bestDays(best) {
  return h("ol", { class: "best-days" }, best.map((b) => h("li", {},
    t("bestDay", { date: longDate(b.date), mp: num(b.mp, { maximumFractionDigits: 1 }), value: num(b.value) }))));
}

export async function startPlayer(data) {
  const box = document.getElementById("profile");
  const heading = document.getElementById("profile-name");
  let p;
  try {
    p = await api.get(`/players/${encodeURIComponent(data.nickname)}`);
  } catch (e) {
    box.removeAttribute("aria-busy");
    fill(box, h("p", { class: "error", role: "alert" },
      t(e instanceof ApiError && e.status === 404 ? "profileUnknown" : "profileError")));
    return;
  }
  heading.textContent = p.nickname;
  document.title = `${p.nickname} · Manille`;
  const parts = [facts(p)];
  if (p.history.length) {
    parts.push(h("h2", {}, t("historyTitle")), h("figure", { class: "rating-figure" }, ratingPlot(p.history)),
      historyTable(p.history), h("h2", {}, t("bestDaysTitle")), bestDays(p.best_days));
  } else {
    parts.push(h("p", {}, t("profileNotRated")));
  }
  fill(box, parts);
  box.removeAttribute("aria-busy");
}
