// Deal points and game totals, Us / Them, the variant in play, which deal this is and the trump
// (or, under rules with an auction, the contract so far and its factor); plus the score sheet.
import { contractText } from "./contract.js";
import { SYMBOL, suitName } from "./cards.js";
import { cat, num, t, teamName } from "./i18n.js";

function cell(tag, text, className) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  return el;
}

export class Scoreboard {
  constructor(section) {
    const table = document.createElement("table");
    table.className = "score-table";
    const head = document.createElement("tr");
    head.append(cell("td", ""), cell("th", teamName(0)), cell("th", teamName(1)));
    for (const th of head.querySelectorAll("th")) th.scope = "col";
    const thead = document.createElement("thead");
    thead.append(head);
    const body = document.createElement("tbody");
    this.labels = [];
    this.rows = [t("thisDeal"), t("gameTo", { n: num(40) })].map((label) => {
      const tr = document.createElement("tr");
      const th = cell("th", label);
      th.scope = "row";
      this.labels.push(th);
      const us = cell("td", "0");
      const them = cell("td", "0");
      tr.append(th, us, them);
      body.append(tr);
      return [us, them];
    });
    table.append(thead, body);
    this.info = cell("p", "", "deal-info");
    this.variant = cell("span", "", "variant-name");
    this.dealLabel = cell("span", "");
    this.trump = cell("span", "", "trump");
    this.info.append(this.variant, " · ", this.dealLabel, " · ", this.trump);
    section.append(this.info, table);
  }

  // The game in play: its rules id (its variant's name is shown) and its target.
  setTerms(rules, target) {
    this.rules = rules;
    this.variant.textContent = cat().variantNames[rules] || rules;
    this.labels[1].textContent = t("gameTo", { n: num(target) });
  }

  // The contract, settled or so far (with the factor the deal's score is multiplied by); null
  // while no trump is named yet.
  setContract(contract, factor) {
    this.trump.textContent = "";
    if (!contract) {
      // parlée: the dealer names it, doubles follow; manillen: the seats choose it in turn
      this.trump.textContent = t(this.rules === "manillen-1" ? "choosing" : "calling");
      return;
    }
    if (SYMBOL[contract.call]) {
      const sym = cell("span", SYMBOL[contract.call], `suit-sym suit-${contract.call}`);
      sym.setAttribute("aria-hidden", "true");
      this.trump.append(sym, " ");
    }
    this.trump.append(contractText(contract, factor, this.rules));
  }

  // A new game: nothing of the old one's contract or trump until its first deal starts.
  clearContract() {
    this.trump.textContent = "";
  }

  update({ deal, trump, points, totals }) {
    if (deal !== undefined) this.dealLabel.textContent = t("dealN", { n: num(deal + 1) });
    if (trump) {
      this.trump.textContent = "";
      const sym = cell("span", SYMBOL[trump], `suit-sym suit-${trump}`);
      sym.setAttribute("aria-hidden", "true");
      this.trump.append(`${t("trump")} `, sym, ` ${suitName(trump)}`);
    }
    if (points) points.forEach((p, i) => { this.rows[0][i].textContent = num(p); });
    if (totals) totals.forEach((p, i) => { this.rows[1][i].textContent = num(p); });
  }
}

// One row per finished deal: card points, game points scored, running totals.
export function scoreSheet(deals, current) {
  const table = document.createElement("table");
  table.className = "sheet";
  const cap = cell("caption", t("sheetCaption"));
  const head = document.createElement("tr");
  for (const text of [t("deal"), `${teamName(0)}`, `${teamName(1)}`, t("scored"), t("totals")]) {
    const th = cell("th", text);
    th.scope = "col";
    head.append(th);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  for (const d of deals || []) {
    const tr = document.createElement("tr");
    const th = cell("th", num(d.deal + 1));
    th.scope = "row";
    const team = d.scored[0] > 0 ? 0 : 1;
    const factor = d.factor > 1 ? ` (${t("factor", { n: num(d.factor) })})` : "";
    tr.append(th, cell("td", num(d.points[0])), cell("td", num(d.points[1])),
      cell("td", `${teamName(team)} ${num(d.scored[team], { signDisplay: "always" })}${factor}`),
      cell("td", `${num(d.totals[0])} – ${num(d.totals[1])}`));
    body.append(tr);
  }
  if (current) {
    const tr = document.createElement("tr");
    tr.className = "current";
    const th = cell("th", num(current.deal + 1));
    th.scope = "row";
    tr.append(th, cell("td", num(current.points[0])), cell("td", num(current.points[1])),
      cell("td", t("inPlay")), cell("td", `${num(current.totals[0])} – ${num(current.totals[1])}`));
    body.append(tr);
  }
  table.append(cap, thead, body);
  return table;
}
