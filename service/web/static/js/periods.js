// The boards' periods: the API's name of a day's week (ISO 8601) and month, and how a person says
// each one ("30 Nov – 6 Dec", "December 2026", a long date).
import { h } from "./dom.js";
import { lang, longDate, num, signed, t } from "./i18n.js";

const utc = (iso) => new Date(`${iso}T00:00:00Z`);

// The ISO week of a date (YYYY-Www): the week belongs to the year of its Thursday.
export function isoWeek(iso) {
  const thursday = utc(iso);
  thursday.setUTCDate(thursday.getUTCDate() + 3 - ((thursday.getUTCDay() + 6) % 7));
  const year = thursday.getUTCFullYear();
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const week = 1 + Math.round(((thursday - jan4) / 86400000 - 3 + ((jan4.getUTCDay() + 6) % 7)) / 7);
  return `${year}-W${String(week).padStart(2, "0")}`;
}

// Monday and Sunday of the week of a date.
export function weekDays(iso) {
  const monday = utc(iso);
  monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
  const sunday = new Date(monday);
  sunday.setUTCDate(sunday.getUTCDate() + 6);
  return [monday, sunday];
}

// A week as people name it: its first and last days, the year only when it is not this one's.
export function weekName(iso, today) {
  const [monday, sunday] = weekDays(iso);
  const thisYear = utc(today).getUTCFullYear();
  const options = { day: "numeric", month: "short", timeZone: "UTC" };
  if (monday.getUTCFullYear() !== thisYear || sunday.getUTCFullYear() !== thisYear) options.year = "numeric";
  return new Intl.DateTimeFormat(lang, options).formatRange(monday, sunday);
}

export function monthName(iso) {
  return new Intl.DateTimeFormat(lang, { month: "long", year: "numeric", timeZone: "UTC" }).format(utc(`${iso.slice(0, 7)}-01`));
}

export function boardPath(kind, day) {
  if (kind === "day") return `/leaderboards/days/${day}`;
  if (kind === "week") return `/leaderboards/weeks/${isoWeek(day)}`;
  if (kind === "month") return `/leaderboards/months/${day.slice(0, 7)}`;
  return "/leaderboards/all-time";
}

export function periodLabel(kind, day, today) {
  if (kind === "day") return longDate(day);
  if (kind === "week") return t("weekOf", { week: weekName(day, today) });
  if (kind === "month") return monthName(day);
  return t("allTime");
}

// A period's cells: its sum of each day's points above or below 1000, and beside it the mean day
// it makes (a newcomer reads 670 a day, not only −330 over one day), then the days played.
export function periodCells(sum, days) {
  const mean = days ? Math.round(1000 + sum / days) : null;
  return [h("td", { class: "num" }, signed(sum)), h("td", { class: "num" }, mean === null ? "—" : num(mean, { useGrouping: false })),
    h("td", { class: "num" }, num(days))];
}

export const periodHeads = () => [t("colSum"), t("colMean"), t("colDays")];
