// A board's pages: Previous / Next only where there is such a page, and which entries are shown;
// nothing at all when the board fits in one page.
import { fill, h } from "./dom.js";
import { num, t } from "./i18n.js";

// Fills `nav` for `total` entries seen `limit` at a time from `offset`; `go(offset)` turns a page.
export function drawPager(nav, { offset, limit, total }, go) {
  const last = Math.min(offset + limit, total);
  const before = offset > 0;
  const after = last < total;
  nav.hidden = !before && !after;
  if (nav.hidden) {
    nav.replaceChildren();
    return;
  }
  fill(nav,
    before ? h("button", { type: "button", class: "btn pager-prev", onclick: () => go(Math.max(0, offset - limit)) },
      t("previousPage", { count: Math.min(limit, offset) })) : null,
    h("span", { class: "range" }, t("range", { first: num(offset + 1), last: num(last), total: num(total) })),
    after ? h("button", { type: "button", class: "btn pager-next", onclick: () => go(offset + limit) },
      t("nextPage", { count: Math.min(limit, total - last) })) : null,
  );
}
