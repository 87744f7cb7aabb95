// What the calls of a deal (parlée, manillen) make so far, in words: the contract so far, the
// call names, and the prompt for the player's call. It only describes what the server said (the
// view's calls, legal calls and carry, or the narrated call events); which calls are legal is the
// server's, never decided here.
import { cat, num, seatName, t } from "./i18n.js";

const NAMING = ["C", "D", "H", "S", "NT"];
// Per rules id (docs/variants.md): what no trump multiplies the deal's score by, and whether the
// dealer names the trump (parlée) or the seats choose it in turn (manillen).
const RULES = {
  "parlee-1": { noTrump: 2, named: true },
  "manillen-1": { noTrump: 2, named: false },
};
const rulesOf = (rules) => RULES[rules] || RULES["parlee-1"];

// A call in words ("Hearts", "No trump", "Pass", "Double"…).
export function callName(call) {
  return cat().callNames[call] || call;
}

export const isNaming = (call) => NAMING.includes(call);

// The trump in a sentence: "diamonds", "no trump".
function trumpWords(call) {
  return call === "NT" ? t("noTrumpWords") : cat().suitNames[call];
}

// What the deal's score is multiplied by for `call` named, before any double (`carry`: ×2 per
// 30–30 deal just before).
function baseFactor(rules, call, carry) {
  return (call === "NT" ? rulesOf(rules).noTrump : 1) * (carry || 1);
}

// The contract the calls so far make ({call, declarer, doubled, factor}), null before a trump
// is named; `calls` as the server gives them: [{seat, call}, …] in the order said.
export function contractSoFar(calls, rules, carry = 1) {
  const naming = calls.find((c) => isNaming(c.call));
  if (!naming) return null;
  const doubled = calls.filter((c) => c.call === "double" || c.call === "redouble").length;
  return { call: naming.call, declarer: naming.seat, doubled,
    factor: baseFactor(rules, naming.call, carry) * 2 ** doubled };
}

// The seat that named the trump so far (null before).
export function callerOf(calls) {
  const naming = calls.find((c) => isNaming(c.call));
  return naming ? naming.seat : null;
}

// The words of a contract, settled or so far: "Diamonds, named by North, doubled ×2".
export function contractText(contract, factor, rules) {
  const by = t(rulesOf(rules).named ? "namedBy" : "chosenBy",
    { seat: seatName(contract.declarer), you: contract.declarer === 0 });
  const parts = [callName(contract.call), by];
  const times = factor > 1 ? t("factor", { n: num(factor) }) : "";
  if (contract.doubled) {
    const word = t(contract.doubled === 2 ? "redoubled" : "doubled");
    parts.push(times ? `${word} ${times}` : word);
  } else if (times) {
    parts.push(times);
  }
  return parts.join(", ");
}

// What the player's call is, from the server's legal calls and the calls so far: name a trump,
// double, redouble, choose or pass, each with the factor it would bring.
export function promptFor(legal, calls, rules, carry = 1) {
  const so = contractSoFar(calls, rules, carry);
  const suit = (carry || 1) > 1 ? num(carry) : null;
  const nt = num(baseFactor(rules, "NT", carry));
  if (legal.includes("redouble") && so) {
    const doubles = calls.filter((c) => c.call === "double");
    const doubler = doubles.length ? doubles[doubles.length - 1].seat : null;
    return t("promptRedouble", { doubler: seatName(doubler), declarer: seatName(so.declarer),
      you: so.declarer === 0, trump: trumpWords(so.call), factor: num(so.factor * 2) });
  }
  if (legal.includes("double") && so) {
    return t("promptDouble", { declarer: seatName(so.declarer), you: so.declarer === 0,
      trump: trumpWords(so.call), factor: num(so.factor * 2) });
  }
  if (legal.some(isNaming)) {
    if (legal.includes("pass")) return t("promptChoose", { suit, nt });
    return t(rulesOf(rules).named ? "promptName" : "promptMustChoose", { suit, nt });
  }
  return t("yourCall");
}
