// On a closed day's result: the player's rating after that day, "Your rating 1,612 ± 48, +23",
// linking to their profile; nothing when the day is not rated yet.
import { api } from "./api.js";
import { h } from "./dom.js";
import { num, t } from "./i18n.js";
import { changeText, profileHref } from "./ratingtext.js";

export async function ratingLine(nickname, day) {
  if (!nickname) return null;
  let profile;
  try {
    profile = await api.get(`/players/${encodeURIComponent(nickname)}`);
  } catch {
    return null;
  }
  const point = profile.history.find((p) => p.date === day);
  if (!point) return null;
  return h("p", { class: "rating-line" }, h("a", { href: profileHref(profile.nickname) },
    t("yourRating", { value: num(point.value), dev: num(point.deviation), change: changeText(point.change) })));
}
