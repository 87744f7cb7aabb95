"""A client generated from the served document by a tool no one here wrote (openapi-python-client)
type-checks (mypy) together with a typed program that uses it, and that program plays today's game
over real HTTP: it opens a run without a token, plays every card, submits, waits for a real
worker's verification and reads the board and its own rank, all through the generated models."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading

import pytest
from werkzeug.serving import make_server

from support.svc_helpers import BIN

#: The two answers that are not JSON (the day's games as NDJSON, a month's archive as gzip): the
#: generator leaves them to the caller, with a warning each.
NOT_JSON = ("application/x-ndjson", "application/gzip")

#: mypy on the client and the program.  The generator's own client.py (the same for every
#: document) passes ``*args: object`` to httpx's typed ``__exit__``, which mypy refuses with
#: httpx 0.28: not this document's doing, so that module alone is not held to it.
MYPY_INI = """[mypy]
strict_optional = True
warn_unused_ignores = True
[mypy-manille_client.client]
ignore_errors = True
"""

PROGRAM = '''
"""Today's game through the generated client, typed end to end."""
from __future__ import annotations

from typing import Callable

from manille_client import AuthenticatedClient, Client
from manille_client.api.leaderboards import get_day_board, get_my_day_entry
from manille_client.api.runs import create_run, play_card
from manille_client.api.submissions import get_submission, submit_run
from manille_client.models import (BoardPage, DailyRunCreate, Entry, Error, GameEndEvent, PlayCard, Run, SubmissionAccepted,
                                   SubmissionCreate, SubmissionStatus)


def play(base_url: str, verify: Callable[[], None]) -> tuple[Run, SubmissionStatus, BoardPage, Entry]:
    opened = create_run.sync(client=Client(base_url=base_url), body=DailyRunCreate())
    assert isinstance(opened, Run), opened
    token = opened.player_token
    assert isinstance(token, str)
    me = AuthenticatedClient(base_url=base_url, token=token)
    run = opened
    while run.status == "playing":
        answer = play_card.sync(run.run_id, client=me, body=PlayCard(turn=run.turn, card=run.view.legal[0]))
        assert isinstance(answer, Run), answer
        run = answer
    ends = [event for event in run.events if isinstance(event, GameEndEvent)]
    assert len(ends) == 1 and ends[0].rank_score == 1000 + 10 * (ends[0].totals[0] - ends[0].totals[1])
    accepted = submit_run.sync(client=me, body=SubmissionCreate(run_id=run.run_id, nickname="Typed"))
    assert isinstance(accepted, SubmissionAccepted), accepted
    verify()
    status = get_submission.sync(accepted.submission_id, client=me)
    assert isinstance(status, SubmissionStatus), status
    board = get_day_board.sync(run.date, client=Client(base_url=base_url))
    assert isinstance(board, BoardPage), board
    around = get_my_day_entry.sync(run.date, client=me)
    assert isinstance(around, BoardPage) and isinstance(around.me, Entry), around
    mine = around.me
    missing = get_submission.sync("nope", client=me)
    assert isinstance(missing, Error) and missing.error == "submission_not_found"
    return run, status, board, mine
'''


@pytest.fixture
def served(app):
    """The app over real HTTP on a free port of this machine."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.mark.slow
def test_a_generated_client_type_checks_and_plays_a_game(app, served, run_worker, tmp_path, monkeypatch):
    doc = app.test_client().get("/api/v1/openapi.json").get_json()
    (tmp_path / "openapi.json").write_text(json.dumps(doc))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff, for its formatting
    made = subprocess.run([str(BIN / "openapi-python-client"), "generate", "--path", "openapi.json", "--meta", "none",
                           "--output-path", "manille_client"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, made.stdout + made.stderr
    said = made.stdout + made.stderr
    warnings = [line for line in said.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == len(NOT_JSON), said
    assert all(f"Unsupported content_type {media}" in said for media in NOT_JSON), said
    models = tmp_path / "manille_client" / "models"
    assert not list(models.glob("*_type_0_type_0*.py")), "a nullable reference read as a new model"
    run_model = (models / "run.py").read_text()
    assert "result: None | Result" in run_model or "result: Result | None" in run_model

    (tmp_path / "play_typed.py").write_text(PROGRAM)
    (tmp_path / "mypy.ini").write_text(MYPY_INI)
    checked = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", ".mypy_cache",
                              "manille_client", "play_typed.py"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=600)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    monkeypatch.syspath_prepend(str(tmp_path))
    program = importlib.import_module("play_typed")
    run, status, board, mine = program.play(served, run_worker)
    assert status.status == "verified" and status.score == run.result.rank_score
    assert board.total == 1 and board.entries[0].nickname == "Typed" and mine.rank == 1
