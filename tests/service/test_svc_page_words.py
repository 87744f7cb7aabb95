"""Every string the page's scripts ask for by name is in every catalogue: a missing one would show
its key ("colScore") in place of words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "js"
ASKED = re.compile(r"""\bt\(\s*["']([A-Za-z_]\w*)["']""")
ENTRY = re.compile(r"""^\s{2}([A-Za-z_]\w*)\s*:""", re.M)


def _asked() -> dict[str, set[str]]:
    asked: dict[str, set[str]] = {}
    for path in JS.glob("*.js"):
        if path.name == "i18n.js":  # t() itself, whose comment shows a call
            continue
        for key in ASKED.findall(path.read_text(encoding="utf-8")):
            asked.setdefault(key, set()).add(path.name)
    return asked


@pytest.mark.parametrize("lang", ["fr", "nl", "en"])
def test_every_string_a_script_asks_for_is_in_the_catalogue(lang):
    have = set(ENTRY.findall((JS / "i18n" / f"{lang}.js").read_text(encoding="utf-8")))
    asked = _asked()
    assert len(asked) > 100  # the pattern finds the scripts' strings at all
    missing = {key: sorted(files) for key, files in asked.items() if key not in have}
    assert not missing, f"{lang}.js lacks strings the scripts ask for: {missing}"
