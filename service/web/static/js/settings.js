// Player preferences, kept on this device.
const KEY = "manille.settings";
const DEFAULTS = { speed: "normal", fourColour: false, tapSelect: false };
const SPEEDS = ["normal", "fast", "instant"];

export const settings = { ...DEFAULTS };
try {
  Object.assign(settings, JSON.parse(localStorage.getItem(KEY) || "{}"));
} catch { /* corrupt or blocked storage: defaults */ }
if (!SPEEDS.includes(settings.speed)) settings.speed = DEFAULTS.speed;

// ?speed= on the URL wins for this visit without changing what is saved.
let urlSpeed = "";
export function setUrlSpeed(speed) {
  urlSpeed = SPEEDS.includes(speed) ? speed : "";
}

const motion = matchMedia("(prefers-reduced-motion: reduce)");
export const reducedMotion = () => motion.matches;

function save() {
  try { localStorage.setItem(KEY, JSON.stringify(settings)); } catch { /* not saved */ }
}

export function applyLook() {
  document.documentElement.classList.toggle("four-colour", Boolean(settings.fourColour));
}

// Milliseconds for each beat of the table at the chosen pace. `card`: before a bot's card that
// the player has still to read (a trick they have not played to yet: what they will answer);
// `follow`: before a bot's card completing a trick the player has already played to, which they
// have seen and need not weigh.
const PACES = {
  normal: { card: 600, follow: 220, move: 260, look: 900, slide: 380, dealPause: 2600 },
  fast: { card: 150, follow: 60, move: 120, look: 300, slide: 160, dealPause: 1200 },
  instant: { card: 0, follow: 0, move: 0, look: 0, slide: 0, dealPause: 0 },
};

// The pace in force: ?speed= for this visit, else the one saved.
export const speed = () => urlSpeed || settings.speed;

// A pace chosen on the table: saved for the next visits, and in force at once.
export function setSpeed(value) {
  if (!SPEEDS.includes(value)) return;
  settings.speed = value;
  urlSpeed = "";
  save();
}

export function pace() {
  const p = { ...PACES[speed()] };
  if (reducedMotion()) {
    p.move = 0;
    p.slide = 0;
  }
  return p;
}

export function bindSettingsForm(form) {
  const sync = () => {
    form.elements.fourColour.checked = Boolean(settings.fourColour);
    form.elements.tapSelect.checked = Boolean(settings.tapSelect);
  };
  sync();
  form.addEventListener("change", () => {
    settings.fourColour = form.elements.fourColour.checked;
    settings.tapSelect = form.elements.tapSelect.checked;
    save();
    applyLook();
  });
  return sync;
}
