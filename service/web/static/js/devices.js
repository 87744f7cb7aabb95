// The "Your devices" page: this player's devices and passkeys (each removable), a link for
// another device, typing a code, and the passkeys.  Opened at /link/{code}, it offers to join.
// The server decides everything (what is whose, what may go); the page only asks and shows.
import { api, ApiError, request, token } from "./api.js";
import { setStatus, initStatus } from "./announcer.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { codeForm, linkPanel } from "./devicelink.js";
import { currentPlayer, joinRefusal } from "./devicejoin.js";
import { passkeyMaker, passkeySignIn, passkeysWork } from "./passkey.js";

const when = (iso) => (iso ? new Intl.DateTimeFormat(document.documentElement.lang,
  { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso)) : "—");

function removal(label, path, after, error) {
  const button = h("button", { type: "button", class: "btn danger", "aria-label": label }, t("deviceRemove"));
  button.addEventListener("click", async () => {
    error.textContent = "";
    button.disabled = true;
    try {
      await request("DELETE", path);
      await after();
    } catch (e) {
      error.textContent = joinRefusal(e);
      button.disabled = false;
      button.focus();
    }
  });
  return button;
}

function deviceItem(d, refresh, error) {
  const label = d.label || t("deviceUnknown");
  return h("li", { class: "device" },
    h("span", { class: "device-name" }, label, d.current ? h("span", { class: "badge" }, t("deviceThis")) : null),
    h("span", { class: "note" }, t("deviceJoined", { when: when(d.joined_at) }), " · ",
      t("deviceSeen", { when: when(d.last_seen) })),
    removal(t("deviceRemoveNamed", { name: label }), `/players/me/devices/${d.device_id}`, async () => {
      if (d.current) {
        token.clear();
        location.assign("/devices");
        return;
      }
      setStatus(t("deviceRemoved", { name: label }));
      await refresh();
    }, error));
}

function passkeyItem(p, refresh, error) {
  return h("li", { class: "device" },
    h("span", { class: "device-name" }, p.name),
    h("span", { class: "note" }, t("passkeyMade", { when: when(p.created_at) }), " · ",
      t("passkeyUsed", { when: when(p.last_used) })),
    removal(t("deviceRemoveNamed", { name: p.name }), `/players/me/passkeys/${p.passkey_id}`, async () => {
      setStatus(t("deviceRemoved", { name: p.name }));
      await refresh();
    }, error));
}

async function drawMine(box) {
  box.setAttribute("aria-busy", "true");
  const error = h("p", { class: "error", role: "alert" });
  const refresh = () => drawMine(box);
  try {
    const mine = await api.get("/players/me/devices");
    fill(box, h("h2", { id: "device-list-title" }, t("devicesTitle")),
      h("ul", { class: "devices", id: "device-items", "aria-labelledby": "device-list-title" }, mine.devices.map((d) => deviceItem(d, refresh, error))),
      h("h3", { id: "passkey-list-title" }, t("passkeysTitle")),
      mine.passkeys.length
        ? h("ul", { class: "devices", id: "passkey-items", "aria-labelledby": "passkey-list-title" }, mine.passkeys.map((p) => passkeyItem(p, refresh, error)))
        : h("p", { class: "note" }, t("passkeysNone")),
      error);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) token.clear();
    fill(box, h("h2", { id: "device-list-title" }, t("devicesTitle")), h("p", { class: "error" }, joinRefusal(e)));
  } finally {
    box.setAttribute("aria-busy", "false");
  }
}

export async function startDevices(data) {
  initStatus(document.getElementById("devices-status"));
  const parts = Object.fromEntries(["join", "link", "passkey-make", "passkey-use", "list"]
    .map((id) => [id, document.getElementById(`device-${id}`)]));
  const draw = async () => {
    const me = await currentPlayer();
    for (const id of ["link", "passkey-make", "list"]) parts[id].hidden = !me;
    if (me) {
      linkPanel(parts.link);
      if (passkeysWork()) passkeyMaker(parts["passkey-make"], () => drawMine(parts.list));
      else parts["passkey-make"].hidden = true;
      await drawMine(parts.list);
    }
    return me;
  };
  const joined = async (answer) => {
    setStatus(answer.nickname ? t("deviceJoinedAs", { name: answer.nickname }) : t("deviceJoinedPlayer"));
    if (data.link) history.replaceState(null, "", "/devices");
    await draw();
    document.getElementById("devices-status").focus();
  };
  codeForm(parts.join, data.link, joined);
  if (passkeysWork()) passkeySignIn(parts["passkey-use"], joined);
  else fill(parts["passkey-use"], h("h2", {}, t("passkeyUseTitle")), h("p", { class: "note" }, t("passkeyUnavailable")));
  await draw();
  if (data.link) document.getElementById("join-link").focus();
}
