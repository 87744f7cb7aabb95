// This device's own ranked games, {date: submission id}: the end of a game remembers each, and
// the leaderboard finds one's own game of a past day by it (its analysis, its deals, its review).
import { store } from "./dom.js";

const KEY = "manille.submissions";
const KEEP = 60; // days: two months are plenty

function read() {
  try { return JSON.parse(store.get(KEY) || "{}") || {}; } catch { return {}; }
}

export function rememberSubmission(day, subId) {
  if (!day || !subId) return;
  const subs = read();
  if (subs[day] === subId) return;
  subs[day] = subId;
  const days = Object.keys(subs).sort().slice(-KEEP);
  store.set(KEY, JSON.stringify(Object.fromEntries(days.map((d) => [d, subs[d]]))));
}

export function ownSubmission(day) {
  return read()[day] || null;
}
