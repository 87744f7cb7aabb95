// One deal played trick by trick with all four hands, as Bridge Base Online's "movie" replays a
// board: the hands as dealt, then each trick in the middle of the table with the cards still held
// around it. Two games of the same deal (the same four hands) side by side, stepped together:
// yours and another player's, or the best. Drawn only from public records: a traveller, and so a
// movie, exists only once the day's seed is published.
import { api } from "./api.js";
import { cardName, suitName } from "./cards.js";
import { callName } from "./contract.js";
import { cardsLeft, handLines, pointsAfter, seatNames, trickCross } from "./dealhands.js";
import { fill, h } from "./dom.js";
import { num, t } from "./i18n.js";

const TRICKS = 8;
// where each seat sits around the table: North at the top, the player at the bottom
const PLACES = { 2: "north", 1: "west", 3: "east", 0: "south" };

function seatBox(seat, cards, names, trump) {
  return h("div", { class: `cmp cmp-${PLACES[seat]}` },
    h("span", { class: "who" }, names[seat]), handLines(cards, names[seat], { trump }));
}

// One game's view of the deal after `step` tricks (0: as dealt).
function paneAt(game, step) {
  const { deal, names } = game;
  const hands = cardsLeft(deal, step);
  const trick = step ? deal.tricks[step - 1] : null;
  const [us, them] = pointsAfter(deal, step);
  const middle = trick ? trickCross(trick, names)
    : h("p", { class: "cmp-dealt" }, deal.turned ? t("turnedWas", { card: cardName(deal.turned) }) : t("asDealtShort"));
  const lines = [];
  if (trick) {
    lines.push(t("ledBy", { seat: names[trick.leader], you: trick.leader === 0 && !game.player }), " ",
      t("trickWonBy", { seat: names[trick.winner], n: trick.points, you: trick.winner === 0 && !game.player }));
  } else {
    lines.push(t("asDealt"));
  }
  const sides = t("sidesPoints", { a: names[0], b: names[2], us: num(us), c: names[1], d: names[3], them: num(them) });
  return [
    h("div", { class: "compass" },
      seatBox(2, hands[2], names, deal.trump), seatBox(1, hands[1], names, deal.trump),
      h("div", { class: "cmp-middle" }, middle),
      seatBox(3, hands[3], names, deal.trump), seatBox(0, hands[0], names, deal.trump)),
    h("p", { class: "movie-after" }, ...lines, " ", h("strong", {}, sides)),
  ];
}

// `panes`: [{subId, title, player}] (`player`: the nickname whose game it is; null: the reader's).
export async function showMovie(section, { deal, panes }) {
  const title = h("h3", { id: "movie-title", tabindex: "-1" }, t("movieTitle", { n: num(deal + 1) }));
  const body = h("div", { class: "movie-body", "aria-busy": "true" });
  fill(section, title, body);
  section.hidden = false;
  section.scrollIntoView({ block: "start" });
  title.focus({ preventScroll: true });
  let records;
  try {
    records = await Promise.all(panes.map((p) => api.get(`/submissions/${p.subId}/record`)));
  } catch {
    body.removeAttribute("aria-busy");
    body.replaceChildren(h("p", { class: "error", role: "alert" }, t("movieError")));
    return;
  }
  const games = panes.map((p, i) => ({ ...p, names: seatNames(p.player),
    deal: (records[i].deals || []).find((d) => d.index === deal) })).filter((g) => g.deal);
  if (!games.length) {
    body.removeAttribute("aria-busy");
    body.replaceChildren(h("p", { class: "error", role: "alert" }, t("movieError")));
    return;
  }
  let at = 0;
  const where = h("p", { class: "movie-where", "aria-live": "polite", "aria-atomic": "true" });
  const prev = h("button", { type: "button", class: "btn", onclick: () => go(at - 1) }, t("previous"));
  const next = h("button", { type: "button", class: "btn", onclick: () => go(at + 1) }, t("next"));
  const boxes = games.map(() => h("div", { class: "movie-stage" }));
  const first = games[0].deal;
  const go = (step) => {
    at = Math.max(0, Math.min(TRICKS, step));
    where.textContent = at ? t("trickOf", { n: num(at), total: num(TRICKS) }) : t("asDealtShort");
    games.forEach((g, i) => fill(boxes[i], paneAt(g, at)));
    const had = document.activeElement;
    prev.disabled = at === 0;
    next.disabled = at === TRICKS;
    if (had && had.disabled) (had === prev ? next : prev).focus({ preventScroll: true });
  };
  // ← → Home End with the focus anywhere in the movie (its title has it once opened)
  const onKey = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: TRICKS };
    if (!(e.key in keys)) return;
    e.preventDefault();
    go(keys[e.key]);
  };
  title.addEventListener("keydown", onKey);
  body.addEventListener("keydown", onKey);
  body.removeAttribute("aria-busy");
  fill(body,
    h("p", { class: "movie-trump" }, t("movieDeal", { trump: first.trump ? suitName(first.trump) : callName("NT") })),
    h("p", { class: "note keyboard-only" }, t("movieKeys")),
    h("div", { class: "movie-nav review-nav", role: "group", "aria-label": t("movieSteps") }, prev, where, next),
    h("div", { class: `movie-panes${games.length > 1 ? " two" : ""}` }, games.map((g, i) =>
      h("section", { class: "movie-pane", "aria-labelledby": `movie-pane-${i}` },
        h("h4", { id: `movie-pane-${i}` }, g.title), boxes[i]))));
  go(0);
  if (document.activeElement === title) next.focus({ preventScroll: true });
}
