// Plural forms as ICU MessageFormat writes them: {"=0"?, one, two?, few?, many?, other}. "=N" is
// taken when the count is exactly N; else the language's CLDR category (Intl.PluralRules: French
// puts 0 and 1 in "one", English and Dutch only 1) picks the form, "other" when the language's
// category has no form of its own. "#" in the form is the count, written as the language writes
// numbers.
const rulesOf = new Map();
const numbersOf = new Map();

function cached(map, lang, make) {
  if (!map.has(lang)) map.set(lang, make());
  return map.get(lang);
}

export const isPlural = (entry) => Boolean(entry) && typeof entry === "object" && typeof entry.other === "string";

export function plural(lang, count, forms) {
  const n = Number(count);
  const exact = forms[`=${n}`];
  const category = cached(rulesOf, lang, () => new Intl.PluralRules(lang)).select(n);
  const form = exact !== undefined ? exact : forms[category] ?? forms.other;
  return form.replace(/#/g, cached(numbersOf, lang, () => new Intl.NumberFormat(lang)).format(n));
}
