"""The table page when a verification is delayed: a real stack whose worker is stopped (SIGSTOP)
while the player submits, whose job is then lost and swept (as the worker's maintenance does):
the page says the verification is delayed and the game is safe, and shows the rank once ops
have requeued it and the worker runs again.  (The French and Dutch strings are checked with
the catalogues, tests/service/test_svc_pages.py.)"""

from __future__ import annotations

import os
import signal
import uuid

import pytest
import requests
from playwright.sync_api import expect
from rq.job import Job

from support.live_stack import OPS_TOKEN, LiveStack
from service.store import connect, raw_client
from service.submissions import Submissions
from support.web_helpers import nickname_box, open_ranked, play_game, wait_rank

DELAYED = "Verification is delayed: it will be retried, and your game is safe."


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with LiveStack(tmp_path_factory.mktemp("delayed-stack"), web_processes=1) as running:
        yield running


def test_a_delayed_verification_is_said_plainly_then_the_rank_comes(visitor, stack):
    page = visitor(base_url=stack.base)
    worker = stack.procs[0]
    os.killpg(worker.pid, signal.SIGSTOP)  # the worker and its scheduler: nothing is verified
    try:
        open_ranked(page)
        play_game(page, "mouse", nickname_box(page))
        with page.expect_response(lambda r: r.url.endswith("/api/v1/submissions")) as info:
            nickname_box(page).fill(f"late-{uuid.uuid4().hex[:6]}")
            page.keyboard.press("Enter")
        sub_id = info.value.json()["submission_id"]
        expect(page.locator(".verifying")).to_be_visible()
        assert DELAYED not in page.content()

        client = connect(stack.redis.url)
        Job.fetch(sub_id, connection=raw_client(client)).delete()  # the job is lost
        assert Submissions(client, stack.settings()).sweep() == [sub_id]
        expect(page.get_by_role("status").filter(has_text=DELAYED)).to_be_visible()
    finally:
        os.killpg(worker.pid, signal.SIGCONT)

    r = requests.post(f"{stack.base}/api/v1/ops/submissions/{sub_id}/requeue", json={},
                      headers={"Authorization": f"Bearer {OPS_TOKEN}"}, timeout=10)
    assert r.status_code == 200 and r.json()["requeued"] is True, r.text
    wait_rank(page)
    expect(page.get_by_text(DELAYED)).to_have_count(0)
