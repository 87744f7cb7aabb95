"""One word per concept per language (deal, game, card points, game points, trick): the glossary
(service/web/translations/glossary.json) names it, and the pages use it and none of the words it
says to avoid: the scripts' catalogue, the templates' translations and the rules document."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "service" / "web"
GLOSSARY = json.loads((WEB / "translations" / "glossary.json").read_text(encoding="utf-8"))
TEMPLATES = WEB / "templates"
#: A string of a catalogue: what follows a key, up to the line's end (a comment line is skipped).
JS_STRING = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")


def _catalogue(lang: str) -> str:
    lines = (WEB / "static" / "js" / "i18n" / f"{lang}.js").read_text(encoding="utf-8").splitlines()
    return "\n".join(m.group(2) for line in lines if not line.lstrip().startswith("//")
                     for m in JS_STRING.finditer(line))


def _templates(lang: str) -> str:
    if lang == "en":  # the templates' own words
        return "\n".join(str(m.id) for m in read_po((WEB / "translations" / "messages.pot").open("rb")) if m.id)
    po = read_po((WEB / "translations" / lang / "LC_MESSAGES" / "messages.po").open("rb"))
    return "\n".join(" ".join(m.string) if isinstance(m.string, (list, tuple)) else m.string for m in po if m.id)


def _rules(lang: str) -> str:
    return (ROOT / "docs" / ("rules.md" if lang == "en" else f"rules.{lang}.md")).read_text(encoding="utf-8")


def _pages(lang: str) -> dict[str, str]:
    text = {"catalogue": _catalogue(lang), "templates": _templates(lang), "rules": _rules(lang)}
    for phrase in GLOSSARY[lang].get("allow", []):
        text = {k: re.sub(re.escape(phrase), " ", v, flags=re.I) for k, v in text.items()}
    return text


def _words(phrase: str) -> re.Pattern:
    return re.compile(r"(?<![\w-])" + re.escape(phrase).replace(r"\ ", r"\s+") + r"(?![\w-])", re.I)


@pytest.mark.parametrize("lang", ["en", "fr", "nl"])
def test_the_pages_use_the_glossarys_word_for_each_concept_and_no_other(lang):
    concepts = {k: v for k, v in GLOSSARY[lang].items() if k != "allow"}
    assert set(concepts) == {"deal", "game", "card points", "game points", "trick"}
    pages = _pages(lang)
    found = []
    for concept, entry in concepts.items():
        for where, text in pages.items():
            for avoid in entry["avoid"]:
                for m in _words(avoid).finditer(text):
                    found.append(f"{where}: {concept} said {m.group(0)!r}: …{text[max(0, m.start() - 50):m.end() + 30]!r}…")
        assert _words(entry["word"]).search(pages["catalogue"] + pages["rules"]), (lang, concept, entry["word"])
    assert not found, f"{lang}: words the glossary avoids:\n  " + "\n  ".join(found)


def test_the_glossary_catches_a_drift():
    """The check itself finds a word to avoid in running text, and not inside a longer word."""
    assert _words("spel").search("Nieuw spel (tot 40)") and not _words("spel").search("gelijkspel, spelpunten")
    assert _words("card points").search("Us 31, them 30 card\npoints")
