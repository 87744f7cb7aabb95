// Previous / Next beside an analysis' decision detail, and where that decision is among the seat's.
import { h } from "./dom.js";
import { num, t } from "./i18n.js";

// `onStep(-1 | 1)` steps; `show(position, count)` says where the detail now is.
export function decisionStepper(onStep) {
  const where = h("span", { class: "an-step-where" });
  const prev = h("button", { type: "button", class: "btn", onclick: () => onStep(-1) }, t("previous"));
  const next = h("button", { type: "button", class: "btn", onclick: () => onStep(1) }, t("next"));
  const el = h("div", { class: "an-step", role: "group", "aria-label": t("decisionSteps") }, prev, where, next);
  const show = (position, count) => {
    where.textContent = t("decisionOf", { n: num(position + 1), total: num(count) });
    const had = document.activeElement;
    prev.disabled = position <= 0;
    next.disabled = position >= count - 1;
    // a button that has just been disabled drops the focus: the other one keeps it on the stepper
    if (had && had.disabled && (had === prev || had === next)) (had === prev ? next : prev).focus({ preventScroll: true });
  };
  return { el, show };
}
