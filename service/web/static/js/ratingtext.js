// A rating in words and figures, the same everywhere it is shown: "1,612 ± 48", with "?" while it
// is provisional (its deviation still large), and a player's profile link.
import { h } from "./dom.js";
import { num, signed, t } from "./i18n.js";

export function ratingText(r) {
  return t(r.provisional ? "ratingProvisional" : "ratingValue", { value: num(r.value), dev: num(r.deviation) });
}

export function profileHref(nickname) {
  return `/players/${encodeURIComponent(nickname)}`;
}

export function profileLink(nickname) {
  return nickname ? h("a", { href: profileHref(nickname) }, nickname) : "—";
}

// "+23", "−5", "±0": a day's change of the rating.
export function changeText(change) {
  return change === null || change === undefined ? t("ratingFirstDay") : signed(change);
}
