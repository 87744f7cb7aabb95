// Free play's choice of variant: a radio group (muette, parlée to 101 or 51, manillen) and a button
// that deals a new game of the chosen one. The choice is kept on this device.
import { h, store } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "manille.variant";
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
  // Draws the picker into `parent`; `onStart(variant)` when "New game" is pressed.
  constructor(parent, { onStart }) {
    this.inputs = VARIANTS.map((v) => h("input", { type: "radio", name: "variant", value: v.value }));
    const saved = VARIANTS.find((v) => v.value === store.get(KEY)) || VARIANTS[0];
    this.inputs[VARIANTS.indexOf(saved)].checked = true;
    this.form = h("form", { class: "variant-form", id: "variant-form" },
      h("fieldset", {},
        h("legend", {}, t("variant")),
        ...VARIANTS.map((v, i) => h("label", {}, this.inputs[i], " ", t(v.label)))),
      h("button", { type: "submit", class: "btn primary" }, t("newGame")));
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      store.set(KEY, this.chosen.value);
      onStart(this.chosen);
    });
    parent.append(this.form);
  }

  get chosen() {
    const i = this.inputs.findIndex((input) => input.checked);
    return VARIANTS[Math.max(0, i)];
  }

  // Shows the variant of the run in play (a resumed run may be of another than the saved choice).
  select(variant) {
    this.inputs[VARIANTS.indexOf(variant)].checked = true;
  }
}
