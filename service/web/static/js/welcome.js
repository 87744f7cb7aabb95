// A newcomer's first visit of today's game (no player token on this device): the welcome says what
// this is, and the one ranked game of the day starts only when asked for. A returning player never
// sees it.
import { api } from "./api.js";

// Resolves once the player asks for today's game (at once for a returning player).
export function firstVisit() {
  const section = document.getElementById("welcome");
  if (!section || api.hasToken()) return Promise.resolve();
  const table = document.getElementById("play-area");
  const note = document.querySelector(".mode-note"); // the welcome says it already
  section.hidden = false;
  table.hidden = true;
  if (note) note.hidden = true;
  return new Promise((resolve) => {
    document.getElementById("welcome-play").addEventListener("click", () => {
      section.hidden = true;
      table.hidden = false;
      if (note) note.hidden = false;
      resolve();
    }, { once: true });
  });
}
