// A link to send: shown in a read-only box, copied to the clipboard, or handed to the system's
// share sheet where the browser has one (the Web Share API: phones, some desktops).
import { h } from "./dom.js";
import { t } from "./i18n.js";

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { class: "sr-only", "aria-hidden": "true" }, text);
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

export const canShare = (data) => typeof navigator.share === "function"
  && (typeof navigator.canShare !== "function" || navigator.canShare(data));

// One Share button: the system's share sheet where the browser has one, else its text and link
// copied; returns the words to say ("" once shared, or when the person closed the sheet).  A sheet
// that refuses (no user gesture left, a policy) falls back to copying.
export async function shareOrCopy(data) {
  if (canShare(data)) {
    try {
      await navigator.share(data);
      return "";
    } catch (e) {
      if (e && e.name === "AbortError") return "";
    }
  }
  return (await copyText([data.text, data.url].filter(Boolean).join("\n"))) ? t("copied") : t("copyFailed");
}

// The link in a box with Copy and (where the browser can) Share; `text` goes with a shared link.
export function linkBox({ url, label, title, text, id }) {
  const field = h("input", { type: "text", id, readonly: true, value: url, class: "link-field",
    spellcheck: "false", onfocus: (e) => e.target.select() });
  const said = h("span", { class: "copied", role: "status" });
  const copy = h("button", { type: "button", class: "btn", onclick: async () => {
    said.textContent = (await copyText(url)) ? t("linkCopied") : t("copyFailed");
  } }, t("copyLink"));
  const data = { title, text, url };
  const share = canShare(data) ? h("button", { type: "button", class: "btn", onclick: async () => {
    try {
      await navigator.share(data);
      said.textContent = "";
    } catch (e) {
      if (e && e.name !== "AbortError") said.textContent = t("copyFailed"); // AbortError: the person closed the sheet
    }
  } }, t("shareLink")) : null;
  return h("div", { class: "link-box" },
    h("label", { for: id }, label),
    h("div", { class: "row" }, field, copy, share),
    said);
}
