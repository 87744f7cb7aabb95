// What a device that joins another player is told first, and the refusals of the device routes.
import { api, ApiError, limitedFor, token } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

// This browser's player now, or null (no token, or one the server refuses: forgotten).
export async function currentPlayer() {
  if (!api.hasToken()) return null;
  try {
    return await api.get("/players/me");
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) token.clear();
    return null;
  }
}

// Resolves true when the device may join: it is no player yet, or the person said yes to leaving
// the player it is (whose games keep their name).  Asked in a dialog placed after `anchor`.
export async function switchAsked(anchor) {
  const me = await currentPlayer();
  if (!me) return true;
  return new Promise((resolve) => {
    const done = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    const yes = h("button", { type: "button", class: "btn primary", id: "switch-yes", onclick: () => done(true) },
      t("deviceSwitchYes"));
    const no = h("button", { type: "button", class: "btn", id: "switch-no", onclick: () => done(false) },
      t("deviceSwitchNo"));
    const dialog = h("dialog", { "aria-labelledby": "switch-title", "aria-describedby": "switch-text" },
      h("h2", { id: "switch-title" }, t("deviceSwitchTitle")),
      h("p", { id: "switch-text" }, me.nickname ? t("deviceSwitchNamed", { name: me.nickname }) : t("deviceSwitchUnnamed")),
      h("p", { class: "row" }, yes, no));
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(false);
    });
    anchor.after(dialog);
    dialog.showModal();
    no.focus();
  });
}

const REFUSALS = {
  unknown_link: "deviceCodeUnknown", passkey_refused: "passkeyRefused", invalid_credential: "passkeyRefused",
  last_way_back: "passkeyLastWayBack", passkey_exists: "passkeyExists", too_many_passkeys: "passkeyTooMany",
  unknown_device: "deviceGone", unknown_passkey: "deviceGone", passkeys_unconfigured: "passkeyUnavailable",
};

export function joinRefusal(e) {
  const wait = limitedFor(e);
  if (wait !== null) return t("deviceTooFast", { seconds: wait });
  if (e instanceof ApiError && REFUSALS[e.code]) return t(REFUSALS[e.code]);
  return e instanceof ApiError ? t("errorGeneric", { message: e.message }) : t("offline");
}
