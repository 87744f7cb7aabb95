"""The examples of the pages, run as written: the "Try it" block of docs/cli.md by bash in an empty
directory, with the virtualenv's ``manille`` on the PATH as the page says, and the commands
the measured figures are printed with (docs/performance.md's sizing, docs/bots.md's strength and
docs/analysis.md's calibration of the flags) (the HTTP session of docs/api.md is run by tests/service/test_svc_docs_examples.py,
which needs a live service)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def try_it_block() -> str:
    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## Try it", 1)[1]
    m = re.search(r"^```sh\n(.*?)^```", section, re.S | re.M)
    assert m, "docs/cli.md: no ```sh block under Try it"
    return m.group(1)


@pytest.mark.skipif(not (shutil.which("jq") and shutil.which("bash")), reason="the example needs bash and jq")
def test_the_try_it_block_of_docs_cli_runs_as_written(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MANILLE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", try_it_block()], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    out = done.stdout
    assert out.count("valid: ") == 2  # the simulated game, and its seat 0's cards verified
    assert "rejected: " in out and "rejected, exit 1" in out
    assert '"seed":"' in out and '"commitment":"' in out  # a closed day's seed, revealed
    assert "verify:" in out and "games/s" in out


PLACEHOLDERS = {"A": "greedy-1", "B": "expert-1", "R": "parlee-1", "X": "bidder-1", "Y": "random-bidder-1",
                "ID": "expert-1", "REV": "HEAD"}


#: The pages whose figures stand beside the commands that print them, from the heading their
#: measurements start at (the pages' other commands are examples of use, with arguments to fill).
FIGURE_PAGES = {"performance.md": "", "bots.md": "## The bots' strength\n", "analysis.md": "## The flags\n"}


def figure_commands(pages=FIGURE_PAGES) -> list[str]:
    """The commands ``pages`` print their figures with (every ``manille …`` and
    ``.venv/bin/python scripts/…`` in their code spans), whitespace made single."""
    text = "\n".join((ROOT / "docs" / page).read_text(encoding="utf-8").partition(FIGURE_PAGES[page])[2]
                     if FIGURE_PAGES[page] else (ROOT / "docs" / page).read_text(encoding="utf-8") for page in pages)
    spans = re.findall(r"`((?:\.venv/bin/)?manille [^`]+|\.venv/bin/python (?:scripts|tests)/[^`]+)`", text)
    return [" ".join(span.split()) for span in spans]


def test_the_figures_commands_parse_as_written():
    from cli.main import build_parser

    commands = figure_commands()
    assert len(commands) >= 20, commands
    assert all(figure_commands((page,)) for page in FIGURE_PAGES)  # each page still has its commands
    for command in commands:
        argv = [PLACEHOLDERS.get(word, word) for word in command.split()]
        if argv[0].endswith("manille"):
            build_parser().parse_args(argv[1:])  # SystemExit (2) on anything it would refuse
        else:
            assert (ROOT / argv[1]).is_file(), command


def test_the_figure_of_greedy_1_against_expert_1_is_what_its_command_prints():
    """The ladder's greedy-1 row, and the README's headline taken from it, as the tournament
    command of docs/bots.md prints it (the seeds are fixed: the same every run)."""
    command = next(c for c in figure_commands() if c.startswith("manille tournament --a A --b B --games 400"))
    argv = [str(Path(sys.executable).parent / "manille"),
            *[PLACEHOLDERS.get(word, word) for word in command.split()[1:]]]
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    assert "A won 80/400 = 20.0% (95% CI 16.4–24.2%)" in out
    assert "| greedy-1 vs expert-1 | 400 | 20.0 % (16.4–24.2) |" in \
        (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    assert "greedy-1 wins 20.0 % of games (16.4–24.2 %)" in (ROOT / "README.md").read_text(encoding="utf-8")
