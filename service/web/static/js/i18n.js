// The page's language is chosen by the server (<html lang>); only that catalogue is loaded.
import { isPlural, plural } from "./plural.js";

const LANGS = ["fr", "nl", "en"];
let catalogue = {};
export let lang = "fr";

export async function loadCatalogue() {
  const asked = document.documentElement.lang;
  lang = LANGS.includes(asked) ? asked : "fr";
  catalogue = (await import(`./i18n/${lang}.js`)).default;
}

export function cat() {
  return catalogue;
}

// t("key", {n: 3}) fills {n}. An entry may be plural forms ({one, other, "=0"…}: plural.js),
// chosen by `count` ("#" in a form is the count); or a function, for grammar a template cannot
// express (articles, "you" as the subject).
export function t(key, vars = {}) {
  let entry = catalogue[key];
  if (entry === undefined) {
    console.warn("missing string", key);
    return key;
  }
  if (typeof entry === "function") return entry(vars);
  if (isPlural(entry)) entry = plural(lang, vars.count, entry);
  return entry.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

const numberFormats = new Map();
export function num(n, options = {}) {
  const key = JSON.stringify(options);
  if (!numberFormats.has(key)) numberFormats.set(key, new Intl.NumberFormat(lang, options));
  return numberFormats.get(key).format(n);
}

export function signed(n) {
  return num(n, { signDisplay: "exceptZero" });
}

export function longDate(iso) {
  const [y, m, d] = iso.split("-").map(Number);
  return new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" })
    .format(new Date(Date.UTC(y, m - 1, d)));
}

export function seatName(seat) {
  return catalogue.seats[seat];
}

export function teamName(team) {
  return catalogue.teams[team === "us" || team === 0 ? 0 : 1];
}
