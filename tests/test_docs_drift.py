"""The pages held to the code, so that a page cannot drift from it unnoticed: every ``MANILLE_*``
setting a page names is one the code reads, and every setting read is in docs/operations.md's
configuration table (tests/test_docs_links.py); every key family the code builds with
``key_for`` is a row of docs/operations.md's key table with how long it is kept, and every key
that table names is one the code builds; every ``make`` target and ``scripts/*.py`` a page names
exists, and every target of the Makefile is on a page.  Each checker is also run on a planted
wrong name, to show that it fails."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from test_docs_links import PAGES, ROOT, settings_read_by_the_code

KEY_PAGE = ROOT / "docs" / "operations.md"
KEY_SECTION = "## Data in Redis"
#: The code that builds keys: the product (the benchmarks' own keys are the product's).
KEY_SOURCES = ("service", "worker")
#: The calls that build a key, their first argument its kind (``Board.key_of`` and ``board_key``
#: wrap ``key_for`` for the boards' slots).
KEY_BUILDERS = {"key_for", "key_of", "board_key"}

SETTING = re.compile(r"\bMANILLE_[A-Z0-9_]*[A-Z0-9]")
MAKE_TARGET = re.compile(r"`make ([a-z][\w-]*)")
SCRIPT = re.compile(r"\bscripts/([\w/]+\.py)\b")
#: A key of the table: ``{scope}:kind…``; the kind is what follows the hash tag.
TABLE_KEY = re.compile(r"`\{([^}`]*)\}:([a-z_]+)")
#: A whole key of the table, as a row writes it.
WHOLE_KEY = re.compile(r"`(\{[^}`]*\}:[^`]*)`")
#: A key of the table's row written after another of the same slot: ``:kind…``.
SHORT_KEY = re.compile(r"`:([a-z_]+)")


# ---- settings ----

def settings_that_exist() -> set[str]:
    """Every ``MANILLE_*`` the code reads (the product's, as the configuration table holds them,
    and those only the tests, the build and the compiled solver's loader read)."""
    names = set(settings_read_by_the_code())
    for source in [*(ROOT / "service").rglob("*.py"), *(ROOT / "worker").rglob("*.py")]:
        text = source.read_text(encoding="utf-8")
        for name in re.findall(r"""tokens?_from_env\(\w+, ["'](MANILLE_[A-Z0-9_]+)["']\)""", text):
            names |= {name, f"{name}_FILE"}  # the value, or the first line (every line) of a file
        for prefix in re.findall(r"""environ\.get\(f["'](MANILLE_[A-Z0-9_]+_)\{""", text):
            names |= {prefix + part for part in re.findall(r"""\(["']([A-Z][A-Z0-9_]*)["'],""", text)}
    sources = [*(ROOT / "bots").rglob("*.py"), *(ROOT / "tests").rglob("*.py"), ROOT / "Makefile"]
    for source in sources:
        if source.resolve() == Path(__file__).resolve():
            continue  # this file's planted names are not settings
        text = source.read_text(encoding="utf-8")
        names |= set(re.findall(r"""environ(?:\.get\(|\[|\.setdefault\()\s*["'](MANILLE_[A-Z0-9_]+)["']""", text))
        names |= set(re.findall(r"\$\((?:or |MANILLE)[^)]*?(MANILLE_[A-Z0-9_]+)", text))
        names |= set(re.findall(r"^\s*(MANILLE_[A-Z0-9_]+)=", text, re.M))
    return names


def unknown_settings(text: str, known: set[str]) -> list[str]:
    """The ``MANILLE_*`` names of ``text`` that are not settings: a family named by its prefix
    (``MANILLE_LIMIT_…``) stands for its members, and ``…_X`` must end a setting's name."""
    unknown = []
    for m in SETTING.finditer(text):
        name = m.group(0)
        tail = text[m.end():m.end() + 2]
        if tail.startswith(("_…", "…", "_*", "*", "_<")) or name in known:
            continue
        unknown.append(name)
    # A family's later members, short after its first: `MANILLE_REVIEW_TOP`, `…_Z`.
    lone_tails = re.findall(r"`…_([A-Z0-9_]+)`", text)
    unknown += [f"…_{tail}" for tail in lone_tails if not any(name.endswith(f"_{tail}") for name in known)]
    return sorted(set(unknown))


def pages_and_readme() -> list[Path]:
    return [p for p in PAGES if p.relative_to(ROOT).parts[0] in ("docs", "deploy") or p.name == "README.md"]


def deploy_files() -> list[Path]:
    """deploy/'s text files (the env example, compose, systemd units, configurations)."""
    files = []
    for path in sorted(p for p in (ROOT / "deploy").rglob("*") if p.is_file()):
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary file names no setting
        files.append(path)
    return files


def test_every_setting_a_page_names_is_read_by_the_code():
    known = settings_that_exist()
    found = {page.relative_to(ROOT).as_posix(): unknown_settings(page.read_text(encoding="utf-8"), known)
             for page in {*pages_and_readme(), *deploy_files()}}
    assert len(deploy_files()) > 10
    assert {page: names for page, names in found.items() if names} == {}


def test_the_settings_check_catches_a_made_up_name():
    known = settings_that_exist()
    assert {"MANILLE_RUN_KEEP_HOURS", "MANILLE_LIMIT_PLAYS_PER_TOKEN", "MANILLE_FLAG_PROBED_SHARE"} <= known
    text = ("Set `MANILLE_RUN_KEEP_HOURS` (48), `MANILLE_LIMIT_…` for each limit, `…_PROBED_SHARE`, "
            "and `MANILLE_PLAY_TURBO` or `…_NO_SUCH_FLAG`.")
    assert unknown_settings(text, known) == ["MANILLE_PLAY_TURBO", "…_NO_SUCH_FLAG"]
    assert {"MANILLE_REVIEW_HOURS", "MANILLE_OPS_TOKEN_FILE"} <= known  # read through a helper


# ---- Redis keys ----

def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return node.values[0].value
    return None


def keys_built(sources=None) -> tuple[dict[str, set[str]], set[str]]:
    """Each kind of key the code builds (``key_for``'s first argument, found in the source without
    running it) → the files that build it, and the literal words of the keys' other parts
    (``through`` of ``{ratings}:ratings:through``). A kind given by a variable is one of the
    module-level ``*_KINDS`` tuples'."""
    files = sources if sources is not None else [p for d in KEY_SOURCES for p in (ROOT / d).rglob("*.py")]
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
    tuples: set[str] = set()
    for tree in trees.values():
        for node in tree.body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
                    and any(isinstance(t, ast.Name) and t.id.endswith("_KINDS") for t in node.targets)):
                tuples |= {v for v in map(_literal, node.value.elts) if v}
    kinds: dict[str, set[str]] = {}
    parts: set[str] = set()
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name not in KEY_BUILDERS:
                continue
            first = node.args[0]
            if isinstance(node.func, ast.Attribute) and name == "key_for" and not _literal(first):
                continue  # RQ's Job.key_for(job_id): RQ's own key
            parts.update(word for arg in node.args[1:] for word in re.split(r"[:{}*]", _literal(arg) or "") if word)
            built = {_literal(first)} if _literal(first) else tuples if isinstance(first, ast.Name) else set()
            for kind in built - {"*"}:
                kinds.setdefault(kind, set()).add(path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT)
                                                  else path.name)
    return kinds, parts


def key_table(text: str) -> list[tuple[str, str, str]]:
    """(key cell, what, kept) of each row of the key table of ``text``'s "Data in Redis" section."""
    section = text.split(KEY_SECTION, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| `") and len(cells) >= 2:
            rows.append((cells[0], cells[1], cells[2] if len(cells) > 2 else ""))
    return rows


def key_table_problems(text: str, built: dict[str, set[str]], parts: set[str]) -> list[str]:
    """What the key table of ``text`` gets wrong against the kinds ``built`` and the keys' ``parts``:
    a kind built that no row names, a row's key that is not built, a row without its lifetime, a key
    in two rows."""
    rows = key_table(text)
    problems = []
    rows_of: dict[str, list[str]] = {}
    for keys, _what, kept in rows:
        full = TABLE_KEY.findall(keys)
        if not full and not keys.startswith("`rq:"):
            problems.append(f"row {keys}: names no key `{{tag}}:kind`")
        for tag, kind in full:
            if kind not in built:
                problems.append(f"row {keys}: `{{{tag}}}:{kind}` is not a key the code builds")
        for key in WHOLE_KEY.findall(keys):
            rows_of.setdefault(key, []).append(keys)
        for short in SHORT_KEY.findall(keys):
            if short not in built and short not in parts:
                problems.append(f"row {keys}: `:{short}` is not a key the code builds")
        if not kept.strip(" —-"):
            problems.append(f"row {keys}: no lifetime")
    named = {kind for keys, _w, _k in rows for kind in [*(k for _t, k in TABLE_KEY.findall(keys)),
                                                         *SHORT_KEY.findall(keys)]}
    problems += [f"`{kind}` (built in {', '.join(sorted(built[kind]))}) is in no row"
                 for kind in sorted(set(built) - named)]
    problems += [f"{key} in {len(where)} rows" for key, where in rows_of.items() if len(where) > 1]
    return problems


def test_every_key_family_is_in_the_key_table_with_its_lifetime():
    built, parts = keys_built()
    assert {"run", "submission", "board", "oracle_ref", "league", "duel", "decisions"} <= set(built)  # still found
    assert {"through", "pending_of", "addr"} <= parts
    text = KEY_PAGE.read_text(encoding="utf-8")
    assert len(key_table(text)) > 30
    assert key_table_problems(text, built, parts) == []


def test_the_key_check_catches_a_missing_row_a_made_up_key_and_a_row_without_its_lifetime(tmp_path):
    code = tmp_path / "store.py"
    code.write_text('KINDS_X = 1\nLEAGUE_KINDS = ("league", "members")\n'
                    'def a(pid):\n    return key_for("player", f"player:{pid}")\n'
                    'def b(day):\n    return key_for("oracle_ref", day_scope(day))\n'
                    'def c(i):\n    return [key_for(kind, f"league:{i}") for kind in LEAGUE_KINDS]\n'
                    'def d(j):\n    return Job.key_for(j), board.key_of("field"), key_for("*", "boards:*")\n')
    built, parts = keys_built([code])
    assert set(built) == {"player", "oracle_ref", "league", "members", "field"}
    assert parts == {"player", "league", "boards"}
    page = (f"{KEY_SECTION}\n\n| key | what | kept |\n|---|---|---|\n"
            "| `{player:<pid>}:player` | a player | 30 days |\n"
            "| `{league:<id>}:league`, `:members`, `:bogus` | a league | 90 days |\n"
            "| `{boards:day:D}:field:day:D` | the field | |\n"
            "| `{nick:<hash>}:nickname` | old names | for good |\n"
            "| `{player:<pid>}:player`, `{player:<pid>}:leagues` | again | 90 days |\n"
            "| `rq:job:bots-<digest>` | RQ's | 120 s |\n\n## Next\n")
    assert key_table_problems(page, built, parts) == [
        "row `{league:<id>}:league`, `:members`, `:bogus`: `:bogus` is not a key the code builds",
        "row `{boards:day:D}:field:day:D`: no lifetime",
        "row `{nick:<hash>}:nickname`: `{nick:<hash>}:nickname` is not a key the code builds",
        "row `{player:<pid>}:player`, `{player:<pid>}:leagues`: `{player:<pid>}:leagues` is not a key the code builds",
        "`oracle_ref` (built in store.py) is in no row",
        "{player:<pid>}:player in 2 rows"]


# ---- make targets and scripts ----

def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):(?!=)", text, re.M))


def named_targets_and_scripts(text: str) -> tuple[set[str], set[str]]:
    return set(MAKE_TARGET.findall(text)), set(SCRIPT.findall(text))


def missing_targets_and_scripts(text: str, targets: set[str], root: Path = ROOT) -> list[str]:
    named_targets, scripts = named_targets_and_scripts(text)
    return sorted([f"make {t}" for t in named_targets - targets]
                  + [f"scripts/{s}" for s in scripts if not (root / "scripts" / s).is_file()])


def test_every_make_target_and_script_a_page_names_exists():
    targets = make_targets()
    assert {"run", "test", "check", "install"} <= targets
    found = {page.relative_to(ROOT).as_posix(): missing_targets_and_scripts(page.read_text(encoding="utf-8"), targets)
             for page in PAGES}
    assert {page: names for page, names in found.items() if names} == {}


def test_every_make_target_is_on_a_page():
    named = set().union(*(named_targets_and_scripts(p.read_text(encoding="utf-8"))[0] for p in pages_and_readme()))
    assert make_targets() - named == set()


def test_the_target_and_script_check_catches_made_up_ones():
    text = "Run `make run`, then `make benchmark` and `.venv/bin/python scripts/bench_speed.py`, `scripts/bench_warp.py`."
    assert missing_targets_and_scripts(text, make_targets()) == ["make benchmark", "scripts/bench_warp.py"]


# ---- each page for its reader ----

#: The pages of players and of the API's clients: they name no operator setting (operations.md does).
READER_PAGES = ("docs/playing.md", "docs/rules.md", "docs/rules.fr.md", "docs/rules.nl.md", "docs/api.md",
                "docs/protocol.md")


def operator_settings_named(text: str) -> list[str]:
    return sorted(set(SETTING.findall(text)) | {f"…_{tail}" for tail in re.findall(r"`…_([A-Z0-9_]+)`", text)})


def test_no_operator_setting_on_a_players_or_a_clients_page():
    found = {page: operator_settings_named((ROOT / page).read_text(encoding="utf-8")) for page in READER_PAGES}
    assert {page: names for page, names in found.items() if names} == {}
    assert operator_settings_named("the wait (`MANILLE_BOT_POOL_WAIT`, 20 s) and `…_Z`") == [
        "MANILLE_BOT_POOL_WAIT", "…_Z"]


def test_the_runbook_is_short_and_playing_md_opens_with_the_site():
    assert len((ROOT / "deploy" / "RUNBOOK.md").read_text(encoding="utf-8").splitlines()) <= 400
    opening = (ROOT / "docs" / "playing.md").read_text(encoding="utf-8").split("\n\n", 2)[1]
    assert "make run" not in opening, opening
