// The four seats around the felt: names, who deals, the turned card (or, in an auction, each
// seat's calls in order, the caller's marked), whose turn, cards left.
import { drawBack, drawCard, cardName, SYMBOL } from "./cards.js";
import { callName } from "./contract.js";
import { t, seatName } from "./i18n.js";

export class Seats {
  constructor(root) {
    this.seats = [0, 1, 2, 3].map((seat) => this.build(root.querySelector(`.seat-${seat}`), seat));
    this.counts = [8, 8, 8, 8];
  }

  build(el, seat) {
    el.textContent = "";
    const label = document.createElement("p");
    label.className = "seat-label";
    const name = document.createElement("span");
    name.className = "seat-name";
    name.textContent = seatName(seat);
    label.append(name);
    if (seat !== 0) {
      const role = document.createElement("span");
      role.className = "seat-role";
      role.textContent = seat === 2 ? t("partner") : t("opponent");
      label.append(role);
    }
    const dealer = document.createElement("span");
    dealer.className = "chip dealer-chip";
    dealer.textContent = t("dealer");
    dealer.hidden = true;
    const turn = document.createElement("span");
    turn.className = "chip turn-chip";
    turn.textContent = seat === 0 ? t("yourTurnShort") : t("toPlay");
    turn.hidden = true;
    const said = document.createElement("span");
    said.className = "chip said-chip";
    said.hidden = true;
    label.append(dealer, turn, said);
    const turned = document.createElement("div");
    turned.className = "turned";
    turned.hidden = true;
    const backs = document.createElement("div");
    backs.className = "backs";
    const count = document.createElement("span");
    count.className = "sr-only";
    el.append(label, turned);
    if (seat !== 0) el.append(backs, count);
    return { el, dealer, turn, turned, backs, count, said };
  }

  // Each seat's calls of this deal's auction, in the order said ([{seat, call}, …], the server's),
  // beside it; `caller`, the seat that named the trump, is marked.
  setCalls(calls, caller = null) {
    this.seats.forEach((s, seat) => {
      const own = calls.filter((c) => c.seat === seat);
      const parts = [];
      own.forEach((c, i) => {
        if (i) parts.push(" · ");
        if (SYMBOL[c.call]) {
          const sym = document.createElement("span");
          sym.className = `suit-sym suit-${c.call}`;
          sym.setAttribute("aria-hidden", "true");
          sym.textContent = SYMBOL[c.call];
          parts.push(sym, " ");
        }
        parts.push(callName(c.call));
      });
      s.said.replaceChildren(...parts);
      s.said.hidden = !own.length;
      s.said.classList.toggle("caller", seat === caller);
    });
  }

  clearCalls() {
    this.setCalls([]);
  }

  setDealer(seat) {
    this.seats.forEach((s, i) => { s.dealer.hidden = i !== seat; });
  }

  // The turned card stays in sight beside the dealer until the dealer plays it.
  setTurned(card, holder) {
    this.seats.forEach((s, i) => {
      const show = card && i === holder;
      s.turned.hidden = !show;
      if (!show || s.turned.dataset.card === card) return;
      s.turned.textContent = "";
      s.turned.dataset.card = card;
      const face = drawCard(card);
      face.classList.add("small");
      face.setAttribute("aria-label", t("turnedCard", { card: cardName(card) }));
      const note = document.createElement("span");
      note.className = "turned-note";
      note.setAttribute("aria-hidden", "true");
      note.textContent = t("trumpShort");
      s.turned.append(face, note);
    });
  }

  setTurn(seat) {
    this.seats.forEach((s, i) => {
      s.turn.hidden = i !== seat;
      s.el.classList.toggle("to-move", i === seat);
    });
  }

  setCounts(counts) {
    this.counts = counts.slice();
    this.seats.forEach((s, i) => {
      if (i === 0) return;
      const n = counts[i];
      if (s.backs.childElementCount !== n) {
        s.backs.textContent = "";
        for (let k = 0; k < n; k++) s.backs.append(drawBack());
      }
      s.count.textContent = t("cardsLeft", { seat: seatName(i), count: n });
    });
  }

  played(seat) {
    const counts = this.counts.slice();
    counts[seat] = Math.max(0, counts[seat] - 1);
    this.setCounts(counts);
  }
}
