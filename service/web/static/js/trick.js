// The centre of the felt: cards arrive from their seat in play order; the trick slides to its winner.
import { drawCard, cardName } from "./cards.js";
import { seatName, t } from "./i18n.js";

// Where each seat sits relative to the centre, as a fraction of the felt's half-size.
const FROM = { 0: [0, 1], 1: [-1, 0], 2: [0, -1], 3: [1, 0] };

export class TrickArea {
  constructor(el) {
    this.el = el;
    this.cards = new Map();
  }

  offset(seat, scale = 1) {
    const [x, y] = FROM[seat];
    const w = this.el.clientWidth / 2;
    const h = this.el.clientHeight / 2;
    return `translate(${Math.round(x * w * scale)}px, ${Math.round(y * h * scale)}px)`;
  }

  place(seat, card, ms = 0) {
    this.remove(seat);
    const face = drawCard(card);
    face.classList.add("slot", `slot-${seat}`);
    face.setAttribute("aria-label", t("seatCard", { seat: seatName(seat), card: cardName(card) }));
    this.el.append(face);
    this.cards.set(seat, face);
    if (!ms || !face.animate) return Promise.resolve();
    const anim = face.animate(
      [{ transform: this.offset(seat, 1.1), opacity: 0.4 }, { transform: "none", opacity: 1 }],
      { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" });
    return anim.finished.catch(() => {});
  }

  remove(seat) {
    const old = this.cards.get(seat);
    if (old) old.remove();
    this.cards.delete(seat);
  }

  markWinner(seat) {
    const card = this.cards.get(seat);
    if (card) card.classList.add("winner");
  }

  async collect(winner, ms = 0) {
    const faces = [...this.cards.values()];
    if (ms && faces.length && faces[0].animate) {
      const to = this.offset(winner, 1.4);
      await Promise.all(faces.map((face) => face.animate(
        [{ transform: "none", opacity: 1 }, { transform: `${to} scale(.6)`, opacity: 0 }],
        { duration: ms, easing: "ease-in", fill: "forwards" }).finished.catch(() => {})));
    }
    this.clear();
  }

  clear() {
    for (const face of this.cards.values()) face.remove();
    this.cards.clear();
  }

  show(plays) {
    this.clear();
    for (const play of plays || []) this.place(play.seat, play.card, 0);
  }
}
