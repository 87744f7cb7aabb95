// Passkeys: "Keep my name with a passkey" makes one for this player; "I have a passkey" signs
// this device in with one (the browser offers the site's passkeys: nothing to type).
import { api } from "./api.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { joinRefusal, switchAsked } from "./devicejoin.js";

// WebAuthn Level 3 reads and writes the options and the answers as JSON.
export const passkeysWork = () => typeof window.PublicKeyCredential === "function"
  && typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function";

// A browser's "not now" (the person closed its sheet) is no error to show.
const dismissed = (e) => e && (e.name === "NotAllowedError" || e.name === "AbortError");

function action(label, id, run, out) {
  const button = h("button", { type: "button", class: "btn", id }, label);
  button.addEventListener("click", async () => {
    out.textContent = "";
    out.className = "note";
    button.disabled = true;
    try {
      await run();
    } catch (e) {
      if (!dismissed(e)) {
        out.className = "error";
        out.textContent = joinRefusal(e);
      }
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

// "Keep my name with a passkey", for a player; `made()` once kept.
export function passkeyMaker(box, made) {
  const out = h("p", { class: "note", role: "status" });
  const name = h("input", { type: "text", id: "passkey-name", maxlength: 40, autocomplete: "off",
    "aria-describedby": "passkey-name-help" });
  const make = action(t("passkeyMake"), "make-passkey", async () => {
    const options = await api.post("/players/me/passkeys/options");
    const credential = await navigator.credentials.create({
      publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
    const body = { credential: credential.toJSON() };
    if (name.value.trim()) body.name = name.value.trim();
    const kept = await api.post("/players/me/passkeys", body);
    out.textContent = t("passkeyKept", { name: kept.name });
    made();
  }, out);
  fill(box, h("h2", { id: "passkey-make-title" }, t("passkeyMakeTitle")), h("p", {}, t("passkeyMakeHelp")),
    h("p", { class: "field" }, h("label", { for: "passkey-name" }, t("passkeyNameLabel")), name,
      h("span", { id: "passkey-name-help", class: "note" }, t("passkeyNameHelp"))),
    h("p", {}, make), out);
}

// "I have a passkey": this device signs in; `joined(answer)` once in.
export function passkeySignIn(box, joined) {
  const out = h("p", { class: "note", role: "status" });
  const button = action(t("passkeyUse"), "use-passkey", async () => {
    if (!(await switchAsked(box.lastElementChild || box))) return;
    const options = await api.post("/players/passkeys/sign-in/options");
    const credential = await navigator.credentials.get({
      publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
    joined(await api.post("/players/passkeys/sign-in", { credential: credential.toJSON() }));
  }, out);
  fill(box, h("h2", { id: "passkey-use-title" }, t("passkeyUseTitle")), h("p", {}, t("passkeyUseHelp")),
    h("p", {}, button), out);
}
