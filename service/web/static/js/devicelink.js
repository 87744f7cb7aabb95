// A device link: "Use on another device" shows a short code and its QR code (drawn by the
// server as an SVG image); the other device types the code, or opens the link, and joins.
import { api, ApiError } from "./api.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { joinRefusal, switchAsked } from "./devicejoin.js";

const shown = (code) => `${code.slice(0, 5)}-${code.slice(5)}`;
const time = (iso) => new Intl.DateTimeFormat(document.documentElement.lang, { timeStyle: "short" })
  .format(new Date(iso));

// The code of a new link, its QR code and when it ends, in `box`; focus goes to the code.
export function linkPanel(box) {
  const out = h("div", { class: "link-out", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "btn primary", id: "make-link" }, t("deviceLinkMake"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const link = await api.post("/players/me/links");
      const code = h("p", { class: "link-code", id: "link-code", tabindex: "-1",
        "aria-label": t("deviceLinkCodeSpoken", { code: link.code.split("").join(" ") }) }, shown(link.code));
      fill(out,
        h("p", {}, t("deviceLinkTell")),
        code,
        h("img", { class: "link-qr", src: link.qr_svg, width: 132, height: 132,
          alt: t("deviceLinkQr") }),
        h("p", { class: "note" }, t("deviceLinkUntil", { time: time(link.expires_at) })),
        h("p", { class: "note" }, h("a", { href: link.url }, link.url)));
      code.focus();
    } catch (e) {
      fill(out, h("p", { class: "error", role: "alert" }, joinRefusal(e)));
    } finally {
      button.disabled = false;
    }
  });
  fill(box, h("h2", { id: "device-link-title" }, t("deviceLinkTitle")),
    h("p", {}, t("deviceLinkHelp")), h("p", {}, button), out);
}

// Typing a code (or the code of the link this page was opened at); `joined(answer)` once in.
export function codeForm(box, prefilled, joined) {
  const input = h("input", { type: "text", id: "link-code-input", name: "code", inputmode: "text",
    autocomplete: "one-time-code", autocapitalize: "characters", spellcheck: "false", maxlength: 16,
    "aria-describedby": "link-code-help", required: true });
  input.value = prefilled ? shown(prefilled.toUpperCase()) : "";
  const error = h("p", { class: "error", role: "alert" });
  const button = h("button", { type: "submit", class: "btn primary", id: "join-link" }, t("deviceJoin"));
  const form = h("form", { class: "device-form", novalidate: true },
    h("p", { class: "field" }, h("label", { for: "link-code-input" }, t("deviceCodeLabel")), input,
      h("span", { id: "link-code-help", class: "note" }, t("deviceCodeHelp"))),
    h("p", {}, button), error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const code = input.value.replace(/[\s-]/g, "");
    if (!code) {
      error.textContent = t("deviceCodeEmpty");
      input.focus();
      return;
    }
    if (!(await switchAsked(form))) return;
    button.disabled = true;
    try {
      joined(await api.post(`/players/links/${encodeURIComponent(code)}`));
    } catch (err) {
      error.textContent = err instanceof ApiError && err.code === "unknown_link" ? t("deviceCodeUnknown") : joinRefusal(err);
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  fill(box, h("h2", { id: "device-join-title" }, t("deviceJoinTitle")), h("p", {}, t("deviceJoinHelp")), form);
}
