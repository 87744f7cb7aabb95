"""Reading an analysis: on a phone it opens on its summary, steps with Previous / Next beside the
decision, a tap never moves the page away from what was tapped, and the key hints are kept for a
keyboard; the plot's values never overlap a bar or each other and the hindsight outlines have
theirs (checked at phone and desktop sizes, on chosen values and on a real game); an exact value
has no "± 0.0"."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from support.live_stack import PHONE
from support.web_helpers import ANALYSIS_MS, finish_free_game

#: Every text and bar of the plot (its boxes on the screen), and which bars have a value.
PLOT_BOXES_JS = """(svg) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom }; };
  const texts = [...svg.querySelectorAll('text')].map(e => ({ text: e.textContent, cls: e.getAttribute('class'), ...box(e) }));
  const rects = [...svg.querySelectorAll('rect')].map(e => ({ cls: e.getAttribute('class'), ...box(e) }));
  return { texts, rects };
}"""


def _overlap(a: dict, b: dict, slack: float = 0.5) -> bool:
    return a["l"] < b["r"] - slack and b["l"] < a["r"] - slack and a["t"] < b["b"] - slack and b["t"] < a["b"] - slack


def _check_plot(svg, deals: int) -> None:
    got = svg.evaluate(PLOT_BOXES_JS)
    texts, rects = got["texts"], got["rects"]
    values = [x for x in texts if "val" in (x["cls"] or "")]
    # one value a bar: from the seat and with hindsight (the outlines), for both seats of each deal
    assert len(rects) == 4 * deals and len(values) == 4 * deals, (len(rects), len(values), deals)
    assert sum("val-open" in x["cls"] for x in values) == 2 * deals, "an outline without its value"
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            assert not _overlap(a, b), f"two labels overlap: {a} and {b}"
        for rect in rects:
            assert not _overlap(a, rect), f"a label overlaps a bar: {a} on {rect}"


#: Points lost of each deal, (you from the seat, you with hindsight, partner, partner with hindsight):
#: hindsight far above the seat, below it, equal, zero, the most a deal holds, a fraction.
VALUES = [(2, 20, 0, 0), (15, 3, 7, 7), (0, 0, 0, 0), (30, 31, 29, 30), (1, 9, 12, 1), (9.6, 10, 0.4, 60)]

PLOT_JS = """async (values) => {
  await new Promise((resolve) => {
    const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: '/static/css/analysis.css' });
    link.onload = resolve;
    document.head.append(link);
  });
  const { loadCatalogue } = await import('/static/js/i18n.js');
  await loadCatalogue();  // the page's own call may still be on its way: its seats' names are in it
  const { lossPlot } = await import('/static/js/lossplot.js');
  const row = (deal, seat, open) => ({ deal, lost_seat: seat, lost_open: open });
  const summary = { 0: { by_deal: values.map((v, k) => row(k, v[0], v[1])) },
                    2: { by_deal: values.map((v, k) => row(k, v[2], v[3])) } };
  const box = Object.assign(document.createElement('section'), { className: 'analysis', id: 'plot-test' });
  box.append(lossPlot(summary, [0, 2]));
  document.querySelector('main').prepend(box);
}"""


def test_the_plots_values_never_overlap_and_the_outlines_have_theirs(visitor):
    for page in (visitor(), visitor(viewport=PHONE, has_touch=True, is_mobile=True)):
        page.goto("/rules?lang=en")
        page.evaluate(PLOT_JS, VALUES)
        svg = page.locator("#plot-test svg.an-plot")
        expect(svg).to_be_visible()
        _check_plot(svg, len(VALUES))
        shown = svg.locator("text.val-open").all_text_contents()
        assert [int(x) for x in shown] == [v for row in VALUES for v in (row[1], row[3])], shown


VERDICT_JS = """async () => {
  const { verdict } = await import('/static/js/decision.js');
  const d = { forced: false, mark: 'mistake', hindsight: 'good', lost_seat: 2, lost_open: 3, best_seat: ['AS'] };
  return { exact: verdict({ ...d, exact: true, lost_seat_se: 0 }), sampled: verdict({ ...d, exact: false, lost_seat_se: 0.45 }) };
}"""


def test_an_exact_value_has_no_error_bar(visitor):
    for lang, lost in (("en", "2.0 points lost"), ("fr", "2,0 points perdus")):
        page = visitor()
        page.goto(f"/rules?lang={lang}")
        got = page.evaluate(VERDICT_JS)
        assert lost in got["exact"] and "±" not in got["exact"], got
        assert "±" in got["sampled"], got  # a sampled value keeps its error


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and 0 <= box["y"] < page.viewport_size["height"]


def test_the_analysis_on_a_phone_opens_on_its_summary_and_a_tap_keeps_the_page(visitor, shot):
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True, locale="fr-BE")
    ask = finish_free_game(page, "fr")
    ask.tap()
    view = page.locator("#analysis")
    expect(view.locator(".an-main")).to_be_visible(timeout=ANALYSIS_MS)
    # it opens on its summary: the accuracy in sight, not a decision's detail far below
    accuracy = view.locator("table.an-summary").first.get_by_role("row", name=re.compile(r"^Précision "))
    assert _in_view(page, accuracy), f"the summary is out of sight: {accuracy.bounding_box()}, scrollY {page.evaluate('scrollY')}"
    expect(view.locator(".an-keys")).to_be_hidden()  # no keyboard here
    _check_plot(view.locator("svg.an-plot"), view.locator(".an-deals tbody tr").count())
    shot(page, "analysis-phone-summary")

    # Previous / Next beside the detail, the list of decisions just before them
    steps = view.get_by_role("group", name="Décisions")
    prev, nxt = steps.get_by_role("button", name="Précédent"), steps.get_by_role("button", name="Suivant")
    expect(prev).to_be_visible()
    detail = view.locator("#an-detail")
    s, d = steps.bounding_box(), detail.bounding_box()
    assert 0 <= d["y"] - (s["y"] + s["height"]) <= 16, (s, d)

    # a tap on a decision changes the detail; the page does not move under the finger
    cards = view.locator(".an-list .an-card")
    target = cards.nth(min(3, cards.count() - 1))
    target.scroll_into_view_if_needed()
    before, scrolled = target.bounding_box()["y"], page.evaluate("scrollY")
    target.tap()
    expect(target).to_have_attribute("aria-current", "true")
    page.wait_for_timeout(300)  # any scroll it would start has started
    assert page.evaluate("scrollY") == scrolled and abs(target.bounding_box()["y"] - before) < 1, "the tap moved the page"
    label = target.get_attribute("aria-label")
    trick = re.search(r"(\d+)", label).group(1)
    expect(detail.get_by_role("heading").first).to_contain_text(f"pli {trick}")

    # Next steps the detail; the button stays under the finger
    nxt.scroll_into_view_if_needed()
    where = steps.locator(".an-step-where")
    was, at = where.inner_text(), nxt.bounding_box()["y"]
    if nxt.is_enabled():
        nxt.tap()
        expect(where).not_to_have_text(was)
        assert abs(nxt.bounding_box()["y"] - at) < 1, "Next moved the page"
        n = int(re.match(r"\d+", was).group(0))
        expect(where).to_have_text(re.compile(rf"^{n + 1} sur \d+$"))
    prev.tap()
    expect(where).to_have_text(was)
