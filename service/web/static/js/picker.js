// Free play's choice of variant: a radio group (muette, parlée to 101 or 51, manillen) and a button
// that deals a new game of the chosen one; while the choice differs from the game in play, a note
// says plainly that "New game" starts it. The choice is kept on this device.
import { h, store } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "manille.variant";
const wide = () => matchMedia("(min-width: 861px)").matches; // table.css's two-column table
export const VARIANTS = [
  { value: "muette-1", rules: "muette-1", target: null, label: "variantMuette" },
  { value: "parlee-1/101", rules: "parlee-1", target: 101, label: "variantParlee101" },
  { value: "parlee-1/51", rules: "parlee-1", target: 51, label: "variantParlee51" },
  { value: "manillen-1", rules: "manillen-1", target: null, label: "variantManillen" },
];

// The variant a run is played under (a run from before variants: muette).
export function variantOf(run) {
  return VARIANTS.find((v) => v.rules === run.rules && (v.target === null || v.target === run.target))
    || VARIANTS[0];
}

export class Picker {
  // Draws the picker just before `table`, in a disclosure open on a wide screen and closed on a
  // phone (the choices come first, yet the table, the hand and the last message still fit one
  // screen); `onStart(variant)` when "New game" is pressed.
  constructor(table, { onStart }) {
    this.inputs = VARIANTS.map((v) => h("input", { type: "radio", name: "variant", value: v.value }));
    const saved = VARIANTS.find((v) => v.value === store.get(KEY)) || VARIANTS[0];
    this.inputs[VARIANTS.indexOf(saved)].checked = true;
    this.note = h("p", { class: "variant-note", role: "status" });
    this.form = h("form", { class: "variant-form", id: "variant-form" },
      h("fieldset", {},
        h("legend", {}, t("variant")),
        ...VARIANTS.map((v, i) => h("label", {}, this.inputs[i], " ", t(v.label)))),
      h("button", { type: "submit", class: "btn primary" }, t("newGame")),
      this.note);
    this.playing = null;
    this.form.addEventListener("change", () => this.explain());
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      store.set(KEY, this.chosen.value);
      if (!wide()) this.box.open = false; // on a phone the new deal needs the screen
      onStart(this.chosen);
    });
    this.box = h("details", { class: "variant-box" }, h("summary", {}, t("newGameChoices")), this.form);
    this.box.open = wide();
    table.before(this.box);
  }

  get chosen() {
    const i = this.inputs.findIndex((input) => input.checked);
    return VARIANTS[Math.max(0, i)];
  }

  // Shows the variant of the run in play (a resumed run may be of another than the saved choice).
  select(variant) {
    this.inputs[VARIANTS.indexOf(variant)].checked = true;
    this.playing = variant;
    this.explain();
  }

  // The game in play goes on under its variant: say what "New game" would start instead.
  explain() {
    const chosen = this.chosen;
    this.note.textContent = this.playing && chosen !== this.playing
      ? t("newGameStarts", { variant: t(chosen.label), playing: t(this.playing.label) }) : "";
  }
}
