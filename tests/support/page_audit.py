"""What a newcomer trips on, read off a page as it is drawn: a catalogue key shown instead of its
words (``colScore``, ``msgWelcome``, or the page's "missing string" console line), a page wider
than its window, text under 12 px, and (on a touch screen) a control smaller than 44×44 px
(WCAG 2.5.5; a link inside a sentence is exempt, as WCAG exempts it).

``watch_missing(page)`` once per page, then ``audit(page, touch=...)`` wherever a page is worth
reading: it returns one line per problem (empty: nothing wrong).
"""

from __future__ import annotations

MIN_TEXT_PX = 12
MIN_TARGET_PX = 44

#: A raw catalogue key: the scripts' keys are camelCase words starting so (i18n.js returns the key
#: itself when a string is missing).
_AUDIT_JS = r"""
([minText, minTarget, touch]) => {
  const problems = [];
  const shown = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
    && el.getBoundingClientRect().width > 1 && el.getBoundingClientRect().height > 1;
  const where = (el) => {
    const id = el.id ? `#${el.id}` : "";
    const cls = typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return `${el.tagName.toLowerCase()}${id}${cls}`;
  };
  const rawKey = /\b(col|msg)[A-Z][A-Za-z]+\b/;
  if (document.documentElement.scrollWidth > innerWidth)
    problems.push(`wider than the window: ${document.documentElement.scrollWidth} px > ${innerWidth} px`);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const small = new Map();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || !el || !shown(el)) continue;
    if (el.closest(".sr-only, [aria-hidden='true'] .sr-only")) continue;
    if (rawKey.test(text)) problems.push(`raw catalogue key in ${where(el)}: "${text.slice(0, 60)}"`);
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < minText) {
      const key = `${where(el)} ${size.toFixed(1)} px`;
      if (!small.has(key)) small.set(key, text.slice(0, 30));
    }
  }
  for (const [key, text] of small) problems.push(`text under ${minText} px: ${key} ("${text}")`);
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
    for (const attr of ["aria-label", "title", "placeholder"]) {
      const v = el.getAttribute(attr);
      if (v && rawKey.test(v)) problems.push(`raw catalogue key in ${where(el)}[${attr}]: "${v}"`);
    }
  }
  if (touch) {
    const inSentence = (el) => {
      if (el.tagName !== "A" || getComputedStyle(el).display !== "inline") return false;
      const block = el.parentElement.closest("p, li, td, dd, figcaption");
      return block && block.textContent.trim().length > el.textContent.trim().length + 10;
    };
    const targets = document.querySelectorAll(
      "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=tab], [role=link]");
    const seen = new Map();
    for (const el of targets) {
      if (!shown(el) || inSentence(el) || el.closest("[inert]")) continue;
      // a box or a round button is tapped anywhere on its label
      const label = /^(checkbox|radio)$/.test(el.type) ? (el.closest("label") || el.labels?.[0]) : null;
      const r = (label || el).getBoundingClientRect();
      if (r.width + 0.5 < minTarget || r.height + 0.5 < minTarget) {
        const key = where(el);
        if (!seen.has(key)) seen.set(key, `${Math.round(r.width)}×${Math.round(r.height)} ("${(el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 24)}")`);
      }
    }
    for (const [key, size] of seen) problems.push(`tap target under ${minTarget}×${minTarget} px: ${key} ${size}`);
  }
  return problems;
}
"""


def watch_missing(page) -> list[str]:
    """The page's "missing string" console lines (i18n.js writes one per missing key), as they come."""
    lines: list[str] = []
    page.on("console", lambda msg: lines.append(msg.text) if "missing string" in msg.text else None)
    return lines


def audit(page, where: str, touch: bool, missing: list[str] | None = None) -> list[str]:
    """Every problem on ``page`` as drawn now, each line prefixed with ``where``."""
    found = page.evaluate(_AUDIT_JS, [MIN_TEXT_PX, MIN_TARGET_PX, touch])
    found += [f"console: {line}" for line in (missing or [])]
    if missing:
        missing.clear()
    return [f"{where}: {line}" for line in found]
