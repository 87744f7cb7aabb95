// Free play's choice of strength: a radio group (a beginner's table, the club's, the day's: the hardest)
// in the variant picker's form, before its "New game" button. The server says which bots each one
// is under each rules id (the page's data-strengths: the strongest is the day's own bots); the
// choice is kept on this device, like the variant, and a note says when the game in play is
// against another table than the one "New game" would deal.
import { h, store } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "manille.strength";
export const LEVELS = ["beginner", "club", "strongest"];
const LABELS = { beginner: "strengthBeginner", club: "strengthClub", strongest: "strengthStrongest" };

export class Strength {
  // `picker`: the variant picker (picker.js) whose form takes the group; `tables`:
  // {rules: {level: bots}} as the server gave it.
  constructor(picker, tables) {
    this.picker = picker;
    this.tables = tables;
    this.inputs = LEVELS.map((level) => h("input", { type: "radio", name: "strength", value: level }));
    this.texts = LEVELS.map(() => h("span"));
    // a first free game is against the club's table: the day's (the hardest) is chosen, not met
    const saved = LEVELS.includes(store.get(KEY)) ? store.get(KEY) : "club";
    this.inputs[LEVELS.indexOf(saved)].checked = true;
    this.note = h("p", { class: "variant-note strength-note", role: "status" });
    const form = picker.form;
    form.querySelector("button[type=submit]").before(h("fieldset", { class: "strength" },
      h("legend", {}, t("strength")),
      ...LEVELS.map((level, i) => h("label", {}, this.inputs[i], " ", this.texts[i]))));
    form.append(this.note);
    this.playing = null;
    form.addEventListener("change", () => this.explain());
    form.addEventListener("submit", () => store.set(KEY, this.level));
    this.explain();
  }

  // The tables the page was served with, or null (a page without them: no choice is drawn).
  static fromPage(picker) {
    try {
      const tables = JSON.parse(document.body.dataset.strengths || "null");
      return tables ? new Strength(picker, tables) : null;
    } catch {
      return null;
    }
  }

  get level() {
    const i = this.inputs.findIndex((input) => input.checked);
    return LEVELS[Math.max(0, i)];
  }

  // The bots "New game" asks for under `rules` (those the server offers; the strongest when unknown).
  botsFor(rules) {
    const table = this.tables[rules] || this.tables["muette-1"];
    return table[this.level] || table.strongest;
  }

  label(level, rules) {
    const table = this.tables[rules] || this.tables["muette-1"];
    return t(LABELS[level], { bots: table[level] });
  }

  // Shows the strength of the run in play (a resumed run may be of another than the saved choice).
  select(run) {
    const table = this.tables[run.rules] || {};
    // two tables may be the same bots (a day dealt by the club's): the choice made stays chosen
    const level = table[this.level] === run.bots ? this.level
      : ["strongest", "club", "beginner"].find((l) => table[l] === run.bots);
    this.playing = level ? { level, rules: run.rules, bots: run.bots } : null;
    if (level) this.inputs[LEVELS.indexOf(level)].checked = true;
    this.explain();
  }

  // The labels name the bots of the variant chosen; the note, what "New game" would change.
  explain() {
    const rules = this.picker.chosen.rules;
    LEVELS.forEach((level, i) => { this.texts[i].textContent = this.label(level, rules); });
    const playing = this.playing;
    const differs = playing && this.botsFor(rules) !== playing.bots;
    this.note.textContent = differs
      ? t("newGameStrength", { chosen: this.label(this.level, rules), playing: this.label(playing.level, playing.rules) })
      : "";
  }
}
