// The table's side windows (last trick, score sheet, keys, settings) and the single-key shortcuts.
import { drawCard, cardName } from "./cards.js";
import { num, seatName, t } from "./i18n.js";
import { scoreSheet } from "./scoreboard.js";
import { bindSettingsForm } from "./settings.js";

export function trickFigure(trick) {
  const list = document.createElement("ol");
  list.className = "trick-list";
  for (const play of trick.plays) {
    const item = document.createElement("li");
    if (play.seat === trick.winner) item.className = "winner";
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = seatName(play.seat);
    const face = drawCard(play.card);
    face.classList.add("small");
    face.setAttribute("aria-label", cardName(play.card));
    item.append(who, face);
    list.append(item);
  }
  return list;
}

function fillLast(body, game) {
  body.textContent = "";
  const trick = game.lastTrick;
  if (!trick) {
    const p = document.createElement("p");
    p.textContent = t("noTrickYet");
    body.append(p);
    return;
  }
  const p = document.createElement("p");
  p.textContent = t("trickWonBy", { seat: seatName(trick.winner), n: trick.points, you: trick.winner === 0 });
  body.append(trickFigure(trick), p);
}

function fillSheet(body, game) {
  body.textContent = "";
  const view = game.run && game.run.view;
  if (!view) return;
  const current = game.run.status === "playing"
    ? { deal: view.deal, points: game.shown ? game.shown.points : view.points, totals: view.totals } : null;
  body.append(scoreSheet(view.deals, current));
}

export function initDialogs(game) {
  const fillers = {
    "last-dialog": (d) => fillLast(d.querySelector(".dialog-body"), game),
    "scores-dialog": (d) => fillSheet(d.querySelector(".dialog-body"), game),
    "settings-dialog": () => syncSettings(),
  };
  const syncSettings = bindSettingsForm(document.getElementById("settings-form"));
  const open = (id) => {
    const dialog = document.getElementById(id);
    if (!dialog || dialog.open) return;
    for (const other of document.querySelectorAll("dialog[open]")) other.close();
    if (fillers[id]) fillers[id](dialog);
    dialog.showModal();
  };
  for (const button of document.querySelectorAll("[data-open]")) {
    button.addEventListener("click", () => open(button.dataset.open));
  }
  // A click on the backdrop (outside the dialog's box) closes it.
  for (const dialog of document.querySelectorAll("dialog")) {
    dialog.addEventListener("click", (e) => {
      if (e.target === dialog) {
        const r = dialog.getBoundingClientRect();
        const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
        if (!inside) dialog.close();
      }
    });
  }
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    const keys = { l: "last-dialog", s: "scores-dialog", "?": "help-dialog" };
    const id = keys[e.key.toLowerCase()];
    if (!id) return;
    e.preventDefault();
    open(id);
  });
}
