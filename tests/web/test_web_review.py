"""The table page when a game lands at the top of the day (the review of the top): a real stack
whose checker is stopped (SIGSTOP) while the player submits, so the page says the game is being
checked; once the checker runs, its check holds the game (a review bar every check passes, here),
and the page says the game is being reviewed and until when, announced (role status), with no
rank; ops find it first in the review queue of the ops page and release it from its detail, and
the page reloaded shows its rank.  (The French and Dutch strings are the
catalogues', checked for the same keys by tests/service/test_svc_pages.py.)"""

from __future__ import annotations

import os
import re
import signal
import uuid

import pytest
import requests
from playwright.sync_api import expect

from support.live_stack import OPS_TOKEN, LiveStack
from support.web_helpers import nickname_box, open_ranked, play_game, wait_rank

CHECKING = "Your game is among the best of the day: it is being checked before it joins the leaderboard…"
REVIEWED = re.compile(r"Your game \(score \d+\) is being reviewed before it joins the leaderboard: "
                      r"by .*2\d{3}.* at the latest\.")


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    # every check holds (a bar under any z): what the page says of a held game is what is tested
    with LiveStack(tmp_path_factory.mktemp("review-stack"), web_processes=1,
                   env={"MANILLE_REVIEW_TOP": "20", "MANILLE_REVIEW_Z": "-1000", "MANILLE_REVIEW_FLAGS": ""}) as running:
        yield running


def test_a_game_at_the_top_is_checked_then_reviewed_until_a_time(visitor, stack):
    page = visitor(base_url=stack.base)
    checker = next(p for p in stack.procs if "analysis-check" in p.args)
    os.killpg(checker.pid, signal.SIGSTOP)
    try:
        open_ranked(page)
        play_game(page, "mouse", nickname_box(page))
        with page.expect_response(lambda r: r.url.endswith("/api/v1/submissions")) as info:
            nickname_box(page).fill(f"top-{uuid.uuid4().hex[:6]}")
            page.keyboard.press("Enter")
        sub_id = info.value.json()["submission_id"]
        expect(page.get_by_role("status").filter(has_text=CHECKING)).to_be_visible(timeout=20_000)
    finally:
        os.killpg(checker.pid, signal.SIGCONT)
    held = page.get_by_role("status").filter(has_text=REVIEWED)
    expect(held).to_be_visible(timeout=30_000)
    got = requests.get(f"{stack.base}/api/v1/submissions/{sub_id}", timeout=10).json()
    assert got["status"] == "review" and got["review"]["phase"] == "held" and got["rank"] is None
    expect(page.locator("#end").get_by_text(re.compile(r"Rank #"))).to_have_count(0)

    # ops see it first, in the review queue, and release it from its detail with a reason
    ops = visitor(base_url=stack.base)
    ops.goto("/ops?lang=en")
    ops.get_by_label("Ops token").fill(OPS_TOKEN)
    ops.get_by_role("button", name="Show submissions").click()
    queue = ops.locator("#ops-review")
    expect(queue.get_by_role("heading", name="Review queue")).to_be_visible()
    expect(queue.get_by_text("1 game in review")).to_be_visible()
    row = queue.locator(f'tr[data-id="{sub_id}"]')
    expect(row.locator("td").nth(2)).to_have_text("held")
    row.get_by_role("button").click()
    detail = ops.locator("#ops-detail")
    expect(detail.get_by_text(re.compile(r"In review \(held\): ranked with no action at"))).to_be_visible()
    detail.get_by_label("Reason (required, kept in the audit log)").fill("a known strong player")
    detail.get_by_role("button", name="Release").click()
    expect(detail.get_by_text("Done: released.")).to_be_visible()
    expect(queue.get_by_text("No game in review.")).to_be_visible()
    got = requests.get(f"{stack.base}/api/v1/submissions/{sub_id}", timeout=10).json()
    assert got["status"] == "verified" and got["rank"] == 1
    audit = requests.get(f"{stack.base}/api/v1/ops/audit", headers={"Authorization": f"Bearer {OPS_TOKEN}"},
                         timeout=10).json()["entries"][0]
    assert (audit["action"], audit["target"], audit["why"]) == ("release", sub_id, "a known strong player")
    page.reload()
    assert wait_rank(page)[0] == 1
