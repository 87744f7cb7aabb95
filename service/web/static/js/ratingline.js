// On a closed day's result: the player's rating after that day, "Your rating 1,612 ± 48, +23",
// linking to their profile; nothing when the day is not rated yet.
import { api } from "./api.js";
import { h } from "./dom.js";
import { num, t } from "./i18n.js";
import { changeText, profileHref } from "./ratingtext.js";

export async function ratingLine(day) {
  let profile;
  try {
    // the caller's own, by token: the day's board may show a name they no longer hold
    profile = await api.get("/players/me/rating");
  } catch {
    return null;
  }
  const point = profile.history.find((p) => p.date === day);
  if (!point) return null;
  const words = t("yourRating", { value: num(point.value), dev: num(point.deviation), change: changeText(point.change) });
  return h("p", { class: "rating-line" }, profile.nickname ? h("a", { href: profileHref(profile.nickname) }, words) : words);
}
