// Builds elements from data safely: text always goes in as text nodes, never as HTML.
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "hidden") el.hidden = Boolean(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

// A touch screen with no keyboard at hand (the main pointer a finger, nothing hovers): the same
// test as base.css's for keyboard-only controls, so the words never tell a phone to press Enter.
export const touchOnly = () => matchMedia("(hover: none) and (pointer: coarse)").matches;

export const store = {
  get(key) { try { return localStorage.getItem(key); } catch { return null; } },
  set(key, value) { try { localStorage.setItem(key, value); } catch { /* not kept */ } },
};

// replaceChildren() would print "null" for a skipped optional part.
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

// Stylesheets a part of a page needs only once it is drawn (a first visit does not pay for them):
// added once, resolved when loaded (or failed: the part is drawn unstyled rather than not at all).
const sheets = new Map();
export function needStyles(...hrefs) {
  const have = [...document.querySelectorAll('link[rel="stylesheet"]')].map((l) => new URL(l.href).pathname);
  return Promise.all(hrefs.filter((href) => !have.includes(href)).map((href) => {
    if (!sheets.has(href)) {
      sheets.set(href, new Promise((resolve) => {
        const link = h("link", { rel: "stylesheet", href });
        link.addEventListener("load", resolve);
        link.addEventListener("error", resolve);
        document.head.append(link);
      }));
    }
    return sheets.get(href);
  }));
}
