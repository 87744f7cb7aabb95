// A restricted player's notice (GET /players/me's `restricted`): why, until when, their latest
// appeal and ops' answer, and a form to appeal while none is waiting (POST /appeals).  The
// server decides all of it; the page only says it.
import { api, ApiError } from "./api.js";
import { fill, h } from "./dom.js";
import { lang, t } from "./i18n.js";

function untilWords(until) {
  if (!until) return t("restrictedUntilLifted");
  const when = new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "short" }).format(new Date(until));
  return t("restrictedUntil", { when });
}

function appealWords(appeal) {
  if (!appeal) return null;
  if (appeal.status === "open") return h("p", { class: "appeal-state" }, t("appealOpen"));
  return h("p", { class: "appeal-state" },
    t(appeal.decision === "granted" ? "appealGranted" : "appealUpheld", { answer: appeal.answer || "" }));
}

function appealForm(box, restricted) {
  const area = h("textarea", { id: "appeal-text", name: "text", rows: 3, maxlength: 4000 });
  const said = h("p", { class: "appeal-said", role: "status" });
  return h("form", { class: "appeal", onsubmit: async (event) => {
    event.preventDefault();
    const text = area.value.trim();
    if (!text) {
      said.textContent = t("appealEmpty");
      area.focus();
      return;
    }
    try {
      const appeal = await api.post("/appeals", { text });
      draw(box, { ...restricted, appeal });
      box.querySelector(".appeal-state").focus();
    } catch (e) {
      said.textContent = e instanceof ApiError ? t("errorGeneric", { message: e.message }) : t("offline");
    }
  } },
  h("label", { for: "appeal-text" }, t("appealLabel")), area,
  h("button", { type: "submit", class: "btn" }, t("appealSend")), said);
}

function draw(box, restricted) {
  const appeal = restricted.appeal;
  fill(box,
    h("h2", { id: "restriction-title" }, t("restrictedTitle")),
    h("p", {}, t("restrictedWhy", { reason: restricted.reason })),
    h("p", {}, untilWords(restricted.until)),
    appealWords(appeal),
    appeal && appeal.status === "open" ? null : appealForm(box, restricted));
  const state = box.querySelector(".appeal-state");
  if (state) state.tabIndex = -1;
}

// The notice drawn before `place` (the page's status line), or nothing for a player not restricted.
export function showRestriction(restricted, place) {
  if (!restricted || !place) return null;
  const box = h("section", { class: "panel restriction", id: "restriction", "aria-labelledby": "restriction-title" });
  draw(box, restricted);
  place.before(box);
  return box;
}
