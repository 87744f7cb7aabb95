// The privacy page's two actions on the player of this browser: a copy of their data, and the
// erasure (after a confirmation). Its words come translated in the page (data-* of the status).
import { api, request, token } from "./api.js";

function say(status, text) {
  status.textContent = text;
}

function download(data, pid) {
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `manille-${pid}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

export function startPrivacy() {
  const status = document.getElementById("privacy-status");
  const confirm = document.getElementById("privacy-confirm");
  document.getElementById("privacy-export").addEventListener("click", async () => {
    if (!api.hasToken()) return say(status, status.dataset.none);
    try {
      const data = await api.get("/players/me/export");
      download(data, data.player);
      say(status, status.dataset.exported);
    } catch (e) {
      say(status, e.status === 401 ? status.dataset.none : status.dataset.failed);
    }
  });
  document.getElementById("privacy-erase").addEventListener("click", () => {
    if (!api.hasToken()) return say(status, status.dataset.none);
    confirm.showModal();
  });
  confirm.addEventListener("close", async () => {
    if (confirm.returnValue !== "erase") return;
    try {
      const done = await request("DELETE", "/players/me", { confirm: "erase" });
      token.clear();
      say(status, status.dataset.erased.replace("{name}", done.pseudonym));
    } catch (e) {
      say(status, e.status === 401 ? status.dataset.none : status.dataset.failed);
    }
  });
}
