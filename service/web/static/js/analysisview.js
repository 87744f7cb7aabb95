// The analysis of a game: the summary for you and your partner (from the seat, and with hindsight
// apart), points lost deal by deal, the costliest decisions, every card with its mark, and the
// chosen decision in detail with Previous / Next beside it. Keys: ← → or J K step card to card,
// Home End, C the next costliest. It opens on its summary, and nothing but a key moves the page:
// a tap changes the detail where it is, never the scroll away from the finger.
import { SYMBOL, cardName, rankLabel, suitName, suitOf } from "./cards.js";
import { fill, h } from "./dom.js";
import { num, seatName, t } from "./i18n.js";
import { decisionPanel, decisionTitle, fmt, isYou, markWord, setPlayer, verdict, who } from "./decision.js";
import { lossPlot } from "./lossplot.js";
import { decisionStepper } from "./stepper.js";

const MARK_ROWS = ["blunder", "mistake", "inaccuracy", "good", "best", "forced"];
let keyHandler = null;

const cap = (s) => (s ? s[0].toLocaleUpperCase() + s.slice(1) : s);

function pct(x) {
  return x === null || x === undefined ? "—" : num(x / 100, { style: "percent", maximumFractionDigits: 1 });
}

function summaryTable(summary, seats, hindsight) {
  const col = (s) => summary[String(s)];
  const row = (label, cell) => h("tr", {}, h("th", { scope: "row" }, label),
    seats.map((s) => h("td", { class: "num" }, cell(col(s)))));
  return h("table", { class: `an-summary${hindsight ? " hindsight" : ""}` },
    h("caption", {}, t(hindsight ? "summaryOpen" : "summarySeat")),
    h("thead", {}, h("tr", {}, h("td", {}), seats.map((s) => h("th", { scope: "col", class: "num" },
      s === 0 ? who(0) : t("partnerSeat", { seat: seatName(s) }))))),
    h("tbody", {},
      row(t("accuracy"), (x) => pct(hindsight ? x.accuracy_open : x.accuracy)),
      row(t("pointsLost"), (x) => (hindsight ? num(x.lost_open) : fmt(x.lost_seat))),
      MARK_ROWS.map((m) => row(cap(markWord(m)), (x) => num((hindsight ? x.hindsight_marks : x.marks)[m] || 0)))));
}

export function showAnalysis(box, doc, record, { player = null } = {}) {
  setPlayer(player);
  const seats = doc.seats && doc.seats.length === 2 ? doc.seats : [0, 2];
  const decisions = doc.decisions;
  let seat = seats[0];
  let at = -1;
  let costlyAt = -1;

  const live = h("p", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true" });
  const detail = h("div", { class: "an-detail", id: "an-detail", tabindex: "-1" });
  const stepper = decisionStepper((delta) => step(delta));
  const listBox = h("div", { class: "an-list" });
  const costBox = h("div", { class: "an-costly" });
  const seatButtons = seats.map((s) => h("button", { type: "button", class: "btn", "aria-pressed": String(s === seat),
    "data-seat": s, onclick: () => showSeat(s, true) }, s === 0 ? who(0) : t("partnerSeat", { seat: seatName(s) })));
  let items = [];

  const mine = () => decisions.map((d, i) => [d, i]).filter(([d]) => d.seat === seat).map(([, i]) => i);
  const costliest = () => (doc.summary[String(seat)].costliest || []).map((c) => c.index);

  function cardButton(i) {
    const d = decisions[i];
    const face = h("span", { class: `an-face suit-sym suit-${suitOf(d.played)}`, "aria-hidden": "true" },
      rankLabel(d.played), SYMBOL[suitOf(d.played)]);
    return h("button", { type: "button", class: `an-card mark-${d.mark}`, "data-index": i, tabindex: "-1",
      "aria-current": "false",
      "aria-label": t("cardItem", { trick: num(d.trick + 1), card: cardName(d.played), mark: markWord(d.mark) }),
      onclick: () => choose(i, { focus: true }) },
    h("span", { class: "an-trick", "aria-hidden": "true" }, t("trickShort", { n: num(d.trick + 1) })),
    face,
    h("span", { class: "an-mark-word", "aria-hidden": "true" }, markWord(d.mark)));
  }

  function drawList() {
    const groups = new Map();
    for (const i of mine()) {
      const k = decisions[i].deal;
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(i);
    }
    items = [];
    const blocks = [...groups].map(([k, idx]) => {
      const buttons = idx.map(cardButton);
      items.push(...buttons);
      const deal = record && record.deals && record.deals.find((x) => x.index === k);
      const id = `an-deal-${k}`;
      return h("section", { class: "an-deal", "aria-labelledby": id },
        h("h4", { id }, t("dealN", { n: num(k + 1) }),
          deal ? h("span", { class: "an-trump" }, ` · ${t("trumpsAre", { trump: suitName(deal.trump) })}`) : null),
        h("ol", { class: "an-cards" }, buttons.map((b) => h("li", {}, b))));
    });
    fill(listBox, h("h3", { id: "an-list-title" }, t("cardsTitle", { who: who(seat), you: isYou(seat) })),
      h("p", { class: "note an-keys keyboard-only" }, t("analysisKeys")),
      h("div", { role: "group", "aria-labelledby": "an-list-title" }, blocks));
  }

  function drawCostly() {
    const list = costliest();
    costBox.replaceChildren(h("h3", {}, t("costliestTitle", { who: who(seat), you: isYou(seat) })));
    if (!list.length) {
      costBox.append(h("p", {}, t("noCostly")));
      return;
    }
    costBox.append(h("ol", { class: "an-costly-list" }, list.map((i) => {
      const d = decisions[i];
      return h("li", {}, h("button", { type: "button", class: "btn an-jump", "data-index": i,
        onclick: () => choose(i, { costly: true }) },
      t("costlyLine", { deal: num(d.deal + 1), trick: num(d.trick + 1), card: cardName(d.played),
        better: cardName(d.best_seat[0]), lost: fmt(d.lost_seat), mark: markWord(d.mark) })));
    })));
  }

  // `focus`: the list's item takes the focus (no scroll); `reveal`: scrolled to, for a key that
  // moved the focus there (a tap or a button never scrolls).
  function choose(i, { focus = false, costly = false, reveal = false } = {}) {
    const d = decisions[i];
    if (!d) return;
    if (d.seat !== seat) showSeat(d.seat, false);
    at = i;
    if (!costly) costlyAt = costliest().indexOf(i);
    for (const b of items) {
      const on = Number(b.dataset.index) === i;
      b.setAttribute("aria-current", String(on));
      b.tabIndex = on ? 0 : -1;
    }
    fill(detail, decisionPanel(d, record));
    const idx = mine();
    stepper.show(idx.indexOf(i), idx.length);
    live.textContent = `${decisionTitle(d)}. ${cap(markWord(d.mark))}: ${verdict(d)}`;
    const item = items.find((b) => Number(b.dataset.index) === i);
    if (focus && item) item.focus({ preventScroll: true });
    if (reveal && item) item.scrollIntoView({ block: "nearest" });
  }

  function showSeat(s, pick) {
    if (s === seat && items.length) return;
    seat = s;
    for (const b of seatButtons) b.setAttribute("aria-pressed", String(Number(b.dataset.seat) === s));
    drawList();
    drawCostly();
    costlyAt = -1;
    if (pick) {
      const first = costliest()[0] ?? mine().find((i) => !decisions[i].forced) ?? mine()[0];
      choose(first, { focus: false });
    }
  }

  function step(delta) {
    const idx = mine();
    const pos = idx.indexOf(at);
    const next = idx[Math.max(0, Math.min(idx.length - 1, (pos < 0 ? 0 : pos + delta)))];
    if (next === undefined) return;
    const fromList = listBox.contains(document.activeElement);
    choose(next, { focus: fromList, reveal: fromList });
  }

  function nextCostly() {
    const list = costliest();
    if (!list.length) {
      live.textContent = t("noCostly");
      return;
    }
    costlyAt = (costlyAt + 1) % list.length;
    choose(list[costlyAt], { focus: true, costly: true, reveal: true });
  }

  // The keys work with the focus anywhere in the analysis (or nowhere: on the page itself).
  if (keyHandler) document.removeEventListener("keydown", keyHandler);
  keyHandler = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (!box.isConnected || box.closest("[hidden]")) return;
    const target = e.target;
    if (target !== document.body && !box.contains(target)) return;
    if (target.closest && target.closest("input, textarea, select, summary, a")) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const keys = {
      ArrowRight: () => step(1), ArrowDown: () => step(1), j: () => step(1),
      ArrowLeft: () => step(-1), ArrowUp: () => step(-1), k: () => step(-1),
      Home: () => step(-Infinity), End: () => step(Infinity), c: () => nextCostly(),
    };
    if (!keys[key]) return;
    e.preventDefault();
    keys[key]();
  };
  document.addEventListener("keydown", keyHandler);

  const intro = h("p", { class: "note an-intro" }, t("analysisIntro"), " ",
    h("a", { href: `/rules#${t("rulesAnchor")}` }, t("analysisHowMarks")));
  fill(box,
    intro,
    h("div", { class: "an-summaries" }, summaryTable(doc.summary, seats, false), summaryTable(doc.summary, seats, true)),
    lossPlot(doc.summary, seats),
    h("div", { class: "an-seat-pick", role: "group", "aria-label": t("showCardsOf") },
      h("span", { class: "an-seat-label", "aria-hidden": "true" }, t("showCardsOf")), seatButtons),
    costBox,
    h("div", { class: "an-main" }, listBox, h("div", { class: "an-detail-col" }, stepper.el, detail)),
    live);
  showSeat(seats[0], false);
  const first = costliest()[0] ?? mine().find((i) => !decisions[i].forced) ?? mine()[0];
  if (first !== undefined) choose(first);
}
