// Entry point: the server renders the page; this reads its data-* and starts what it needs.
import { loadCatalogue, longDate } from "./i18n.js";
import { applyLook, setUrlSpeed } from "./settings.js";

async function table(data) {
  const [{ Game }, { initDialogs }, { initAnnouncer, initStatus }, { bindPaceControl }] = await Promise.all([
    import("./game.js"), import("./dialogs.js"), import("./announcer.js"), import("./pacecontrol.js")]);
  initAnnouncer(document.getElementById("log"), document.getElementById("ticker"));
  initStatus(document.getElementById("status"));
  setUrlSpeed(data.speed);
  bindPaceControl(document.getElementById("pace"));
  const game = new Game({ mode: data.mode, day: data.day, today: data.today, duel: data.duel });
  initDialogs(game);
  await game.start();
}

// Dates are printed ISO by the server; show them in the page's language.
function localDates() {
  for (const el of document.querySelectorAll("time[datetime].local-date")) {
    if (/^\d{4}-\d{2}-\d{2}$/.test(el.dateTime)) el.textContent = longDate(el.dateTime);
  }
}

async function main() {
  applyLook();
  await loadCatalogue();
  localDates();
  const data = document.body.dataset;
  if (data.page === "table") await table(data);
  else if (data.page === "leaderboard") (await import("./leaderboard.js")).startLeaderboard(data);
  else if (data.page === "archive") await (await import("./archive.js")).describeDays();
  else if (data.page === "leagues") await (await import("./leagues.js")).startLeagues(data);
  else if (data.page === "devices") await (await import("./devices.js")).startDevices(data);
  else if (data.page === "player") await (await import("./player.js")).startPlayer(data);
  else if (data.page === "privacy") (await import("./privacy.js")).startPrivacy();
  else if (data.page === "rules") {
    // The contents stay folded on a phone, where they would push the rules a screen down.
    const toc = document.getElementById("toc-details");
    if (toc && matchMedia("(min-width: 761px)").matches) toc.open = true;
  }
}

main().catch((e) => console.warn(e));
