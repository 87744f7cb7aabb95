"""The curl session of docs/api.md, run as written (bash, curl, jq) against a live service: gunicorn
and a ``python -m worker`` on the test Redis, started by the suite's own helpers.  Only the
block's first line, ``BASE=…``, is replaced by the live service's address, as the page says."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys

import pytest
import requests

from support.svc_helpers import ROOT, flush_state, live_service

API_DOC = ROOT / "docs" / "api.md"
BASE_LINE = "BASE=http://127.0.0.1:8000/api/v1"


def sh_block(heading: str) -> str:
    """The first fenced ``sh`` block under ``## heading`` of docs/api.md; it must start with BASE."""
    section = API_DOC.read_text(encoding="utf-8").split(f"## {heading}", 1)[1]
    m = re.search(r"^```sh\n(.*?)^```", section, re.S | re.M)
    assert m, f"docs/api.md: no ```sh block under {heading!r}"
    block = m.group(1)
    assert block.splitlines()[0] == BASE_LINE, "the block's first line must stay the BASE the page tells to change"
    return block


@contextlib.contextmanager
def run_block(block: str, redis_server, tmp_path, timeout: float):
    """Runs ``block`` in bash against a fresh live service (a worker beside it), its BASE made the
    service's; yields (the service's address, the finished run, its working directory) while the
    service is still up."""
    flush_state(redis_server.url)
    logs = tmp_path / "logs"
    logs.mkdir()
    work = tmp_path / "shell"
    work.mkdir()
    with live_service(redis_server.url, logs, [sys.executable, "-m", "worker", "--url", redis_server.url]) as base:
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.replace(BASE_LINE, f"BASE={base}/api/v1", 1)],
                              cwd=work, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
        yield base, done, work


needs_shell = pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq") and shutil.which("bash")),
                                 reason="the example needs bash, curl and jq")


def test_the_block_is_found_and_starts_with_base():
    block = sh_block("An example session with curl")
    assert "curl" in block and "/submissions" in block and "/leaderboards/days/" in block


@needs_shell
@pytest.mark.stack
def test_the_curl_session_of_docs_api_runs_as_written(redis_server, tmp_path):
    with run_block(sh_block("An example session with curl"), redis_server, tmp_path, timeout=240) as (base, done, work):
        run = json.loads((work / "run.json").read_text())
        assert run["status"] == "finished" and run["result"] is not None
        sub_id = json.loads((work / "sub.json").read_text())["submission_id"]
        sub = requests.get(f"{base}/api/v1/submissions/{sub_id}", timeout=10).json()
        assert sub["status"] in ("verified", "held"), sub
        if sub["status"] == "verified":
            assert sub["rank"] == 1

    # What the block printed: the submission's verdict, then the board with the caller's entry.
    out = done.stdout
    assert f'"status": "{sub["status"]}"' in out
    board = json.loads(out[out.rindex('{\n  "total"'):])
    assert board["total"] == (1 if sub["status"] == "verified" else 0)
    if sub["status"] == "verified":
        assert board["me"]["nickname"].startswith("curl-") and board["top"][0]["score"] == sub["score"]


@needs_shell
@pytest.mark.stack
def test_the_etag_example_of_docs_api_runs_as_written(redis_server, tmp_path):
    """The headers it greps are there, and the board asked again with its ETag is a 304."""
    with run_block(sh_block("Reading the boards from a program"), redis_server, tmp_path, timeout=60) as (_, done, work):
        lines = done.stdout.strip().splitlines()
        shown = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in lines[:-1]}
        assert shown["cache-control"].startswith("public, max-age=") and shown["access-control-allow-origin"] == "*"
        assert re.fullmatch(r'"[0-9a-f]{32}"', shown["etag"]) and shown["vary"] == "X-Player-Token, Authorization"
        assert lines[-1] == "304"
        assert json.loads((work / "board.json").read_text())["board"] == "day"
