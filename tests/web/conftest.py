"""Browser tests: the real product (Redis, a separate RQ worker process, gunicorn) driven by a real
Chromium through Playwright, as a new visitor would use it.

- ``site``: the base URL of the stack, one per session (Redis flushed when it starts); ``live``:
  the stack itself (its Redis, for a test that sets up what no page can, such as a past day's game).
- ``browser``: Debian's Chromium (``/usr/bin/chromium`` or ``$MANILLE_CHROMIUM``).  Absent, or
  Debian's ``faketime`` absent (the stack's fixed day): the whole directory is skipped, except when
  ``$CI`` is set: then every test fails, loudly.
- ``visitor(**context_options)``: a new page in a fresh browser context (no cookie, no storage),
  its Date on the stack's clock (``LiveStack.browser_clock``); ``page`` is one of them at desktop size.  Every such page is watched: a console error, an
  uncaught exception, a failed request or an answer with status >= 400 fails the test.
- ``shot(page, name)``: a screenshot saved under tests/web/artifacts/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from support.live_stack import CHROMIUM_ARGS, DESKTOP, LiveStack, chromium_available, chromium_path, faketime_path

HERE = Path(__file__).resolve().parent
ARTIFACTS = HERE / "artifacts"
NO_CHROMIUM = "no Chromium found at /usr/bin/chromium (or $MANILLE_CHROMIUM)"

expect.set_options(timeout=10_000)


def _in_this_dir(item) -> bool:
    try:
        Path(str(item.path)).resolve().relative_to(HERE)
        return True
    except ValueError:
        return False


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _in_this_dir(item):
            item.add_marker(pytest.mark.stack)  # every browser test runs the whole product
    if (chromium_available() and faketime_path()) or os.environ.get("CI"):
        return  # with $CI set, the ``browser`` or ``live`` fixture fails every test instead
    missing = NO_CHROMIUM if not chromium_available() else "no faketime (Debian: apt-get install faketime)"
    skip = pytest.mark.skip(reason=f"{missing}: browser tests skipped")
    for item in items:
        if _in_this_dir(item):
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _fresh_failure_screenshots():
    """FAILED-*.png under artifacts/ are this run's only."""
    for old in ARTIFACTS.glob("FAILED-*.png"):
        old.unlink()


@pytest.fixture(scope="session")
def live(tmp_path_factory):
    """The session's stack: Redis (flushed) + the two ``python -m worker`` + gunicorn on free ports."""
    stack = LiveStack(tmp_path_factory.mktemp("web-stack")).start()
    try:
        yield stack
    finally:
        stack.stop()


@pytest.fixture(scope="session")
def site(live):
    """The base URL of the session's stack."""
    return live.base


@pytest.fixture(scope="session")
def playwright():
    if not chromium_available():
        pytest.fail(f"{NO_CHROMIUM}; $CI is set, so the browser tests must run: install Debian's "
                    "chromium package", pytrace=False)
    pw = sync_playwright().start()
    yield pw
    pw.stop()


@pytest.fixture(scope="session")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()


class PageWatch:
    """Everything that went wrong on one page, as text lines.

    One kind of failed request is not the page's fault: ``net::ERR_ABORTED`` for a request that
    was still in flight when the page was navigated away (the test moved on, or a link was
    followed); such a failure is dropped when the main frame navigated after the request started.
    """

    def __init__(self, page, label: str) -> None:
        self.page = page
        self.label = label
        self._errors: list[str] = []
        self._aborted: list[tuple[int, str]] = []  # (when the request started, the error line)
        self._seq = 0
        self._started: dict = {}
        self._navigations: list[int] = []
        self.allowed: list = []  # predicates over the error line, set by a test that provokes them
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self._add(f"uncaught exception: {exc}"))
        page.on("request", self._request)
        page.on("framenavigated", self._navigated)
        page.on("requestfailed", self._failed)
        page.on("response", lambda r: self._add(f"HTTP {r.status}: {r.request.method} {r.url}")
                if r.status >= 400 else None)

    def _tick(self) -> int:
        self._seq += 1
        return self._seq

    def _request(self, request) -> None:
        self._started[request] = self._tick()

    def _navigated(self, frame) -> None:
        if frame == self.page.main_frame:
            self._navigations.append(self._tick())

    def _failed(self, request) -> None:
        line = f"request failed: {request.method} {request.url} ({request.failure})"
        if "net::ERR_ABORTED" in (request.failure or ""):
            self._aborted.append((self._started.get(request, 0), line))
        else:
            self._add(line)

    def _console(self, msg) -> None:
        if msg.type == "error":
            loc = msg.location or {}
            self._add(f"console error: {msg.text} ({loc.get('url', '')}:{loc.get('lineNumber', '')})")

    def _add(self, line: str) -> None:
        if not any(allow(line) for allow in self.allowed):
            self._errors.append(line)

    @property
    def errors(self) -> list[str]:
        left = [line for started, line in self._aborted
                if not any(nav > started for nav in self._navigations)
                and not any(allow(line) for allow in self.allowed)]
        return self._errors + left

    def allow(self, pattern: str) -> None:
        """Do not count errors matching ``pattern`` (a regex) — only for a test that causes them."""
        rx = re.compile(pattern)
        self.allowed.append(lambda line: bool(rx.search(line)))


_WATCHES = pytest.StashKey[list]()


@pytest.fixture
def visitor(browser, live, request):
    """``visitor(**context_options) -> page``: a new visitor (fresh context) on the site."""
    contexts = []
    watches: list[PageWatch] = []
    request.node.stash[_WATCHES] = watches

    def new(**options):
        opts = {"base_url": live.base, "viewport": DESKTOP, "locale": "en-GB", **options}
        ctx = browser.new_context(**opts)
        ctx.set_default_timeout(15_000)
        ctx.add_init_script(live.browser_clock())
        contexts.append(ctx)
        page = ctx.new_page()
        page.watch = PageWatch(page, f"page {len(watches) + 1}")
        watches.append(page.watch)
        return page

    yield new
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def page(visitor):
    return visitor()


@pytest.fixture
def shot():
    ARTIFACTS.mkdir(exist_ok=True)

    def save(page, name: str, full_page: bool = False) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path
    return save


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """After a test body passed: fail it if any watched page logged an error."""
    try:
        result = yield
    except BaseException:
        _failure_screenshots(item)
        problems = _problems(item)
        if problems:
            item.add_report_section("call", "browser errors", "\n".join(problems))
        raise
    problems = _problems(item)
    if problems:
        _failure_screenshots(item)
        raise AssertionError("the browser reported errors (allowlist: none):\n  " + "\n  ".join(problems))
    return result


def _problems(item) -> list[str]:
    return [f"{w.label} ({w.page.url}): {e}" for w in item.stash.get(_WATCHES, []) for e in w.errors]


def _failure_screenshots(item) -> None:
    for n, w in enumerate(item.stash.get(_WATCHES, []), 1):
        try:
            ARTIFACTS.mkdir(exist_ok=True)
            w.page.screenshot(path=str(ARTIFACTS / f"FAILED-{item.name}-{n}.png"), full_page=True, timeout=5000)
        except Exception:  # noqa: BLE001 - a screenshot is a courtesy, never the failure
            pass
