"""Every link of the project's markdown (README.md, UPGRADING.md, docs/, deploy/, any other page) resolves:
a relative link to a file or directory that exists and, with an anchor, to a heading of that page
(GitHub's slugs).  References to the specification name a section docs/spec.md has
("docs/spec.md §6.3"), and no tracked file points to the old rules document (its name and a section
sign) that is not in the project.
Every script, deploy file, page or test a page names in code (`scripts/bench_speed.py`) exists.
No page speaks of the work's history (issue numbers): the pages describe the product as it is.
The configuration table of docs/operations.md names every setting the code reads."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPED_DIRS = {"node_modules", "__pycache__", "build", "dist"}


def project_files() -> list[Path]:
    """The project's tracked files (git's list; without git, every file outside hidden and build
    directories)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in ROOT.rglob("*") if p.is_file()]
    return sorted(p for p in files if p.is_file() and not any(
        part.startswith(".") or part in SKIPPED_DIRS for part in p.relative_to(ROOT).parts[:-1]))


PAGES = sorted({*(p for p in project_files() if p.suffix == ".md"), ROOT / "README.md", ROOT / "UPGRADING.md",
                *(ROOT / "docs").glob("*.md"), *(ROOT / "deploy").glob("*.md")})
OLD_RULES = "RULES" + " §"  # spelt in two pieces so that this file does not hold what it looks for
SPEC_REF = re.compile(r"docs/spec\.md §(\d+(?:\.\d+)?)(?:\s*[–-]\s*(\d+(?:\.\d+)?))?")
SPEC_HEADING = re.compile(r"^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s", re.M)

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
CODE = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.M)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
NAMED_PATH = re.compile(r"^(?:\.venv/bin/python )?((?:scripts|deploy|docs|tests)/[\w./@-]*\w\.\w+)(?![\w/])")
HISTORY = re.compile(r"\bissues? #?\d+|\bruns? A[–-]D\b", re.I)


def without_code(text: str) -> str:
    """The text with fenced blocks and inline code blanked (their lines kept, for line numbers)."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return CODE.sub(lambda m: " " * len(m.group(0)), text)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: markup dropped, lower case, punctuation out, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    out: set[str] = set()
    seen: dict[str, int] = {}
    for m in HEADING.finditer(FENCE.sub(lambda f: "\n" * f.group(0).count("\n"), page.read_text(encoding="utf-8"))):
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    out |= set(re.findall(r'<a\s+(?:name|id)="([^"]+)"', page.read_text(encoding="utf-8")))
    return out


def links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every inline, image and reference link outside code."""
    plain = without_code(text)
    found = [(m.start(), m.group(1)) for m in LINK.finditer(plain)]
    found += [(m.start(), m.group(1)) for m in REFERENCE.finditer(plain)]
    return [(plain.count("\n", 0, at) + 1, target) for at, target in sorted(found)]


def broken_links(page: Path) -> list[str]:
    """Each link of ``page`` that does not resolve, as "page:line: target (why)"."""
    problems = []
    where = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    for line, target in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto: … not walked here
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            problems.append(f"{where}:{line}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where}:{line}: {target} (no heading #{anchor} in {dest.name})")
    return problems


def named_paths_missing(page: Path) -> list[str]:
    problems = []
    for m in CODE.finditer(FENCE.sub("", page.read_text(encoding="utf-8"))):
        for word in re.split(r"\s*[,;]\s*|\s+\|\s+", m.group(2).strip()):
            named = NAMED_PATH.match(word)
            if named and "*" not in named.group(1) and not (ROOT / named.group(1)).exists():
                problems.append(f"{page.relative_to(ROOT)}: `{named.group(1)}` does not exist")
    return problems


def test_the_pages_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "docs/playing.md", "docs/api.md", "docs/operations.md", "docs/performance.md",
            "docs/architecture.md", "deploy/RUNBOOK.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves(page):
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_named_script_and_file_exists(page):
    assert named_paths_missing(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_work_history(page):
    lines = [f"{n}: {line.strip()}" for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if HISTORY.search(line)]
    assert lines == []


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    first_block = FENCE.search(text).group(0)
    assert "make run" in first_block and "make test" in first_block
    assert text.index(first_block) < text.index("\n## ")  # the two commands come first
    for page in ("docs/playing.md", "docs/api.md", "docs/protocol.md", "docs/operations.md", "deploy/RUNBOOK.md",
                 "docs/architecture.md", "docs/performance.md"):
        assert f"]({page})" in text, page
    assert "](docs/screenshots/" in text
    headline = text.split("## Headline figures", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in headline.splitlines() if line.startswith("| ") and not line.startswith("| what ")]
    assert 1 <= len(rows) <= 6, rows  # a few headlines; each figure lives beside its command
    assert all(re.search(r"\]\(docs/(performance|bots|analysis)\.md#", row) for row in rows), rows


def test_the_walker_catches_a_broken_link(tmp_path):
    """The checks above fail when a link breaks: a missing file, a missing heading, a missing
    directory; and they pass links to files, directories, headings and pages outside code."""
    (tmp_path / "other.md").write_text("# Other page\n\n## Beyond one Redis: Redis Cluster\n\n## Same\n\n## Same\n")
    (tmp_path / "dir").mkdir()
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n"
        "[ok](other.md) [ok](other.md#beyond-one-redis-redis-cluster) [ok](other.md#same-1) [ok](dir)\n"
        "[ok](#title) [ok](https://example.org/nowhere) ![ok](other.md)\n"
        "`[in code](missing.md)`\n\n```\n[in a block](missing.md)\n```\n\n"
        "[broken](missing.md)\n"
        "[broken anchor](other.md#no-such-heading)\n"
        "![broken image](screenshots/none.png)\n"
        "[broken here](#nowhere)\n"
        "[ref]: gone/away.md\n")
    found = broken_links(page)
    assert [p.split(": ", 1)[1] for p in found] == [
        "missing.md (no such file)", "other.md#no-such-heading (no heading #no-such-heading in other.md)",
        "screenshots/none.png (no such file)", "#nowhere (no heading #nowhere in page.md)",
        "gone/away.md (no such file)"], found


def test_slugs_as_github_makes_them():
    assert slug("10.3 Rejection codes") == "103-rejection-codes"
    assert slug("The API (`/api/v1`, JSON)") == "the-api-apiv1-json"
    assert slug("Beyond one Redis: Redis Cluster") == "beyond-one-redis-redis-cluster"
    assert slug("Reviewing the day: the ops page, `manille ops` and the ops API") == \
        "reviewing-the-day-the-ops-page-manille-ops-and-the-ops-api"


def settings_read_by_the_code() -> set[str]:
    """Every environment variable the service, the worker, gunicorn's config and `make run` read."""
    from service.config import DEFAULT_LIMITS
    from service.flags import FlagSettings

    names: set[str] = set()
    sources = [*(ROOT / "service").rglob("*.py"), *(ROOT / "worker").rglob("*.py"), *(ROOT / "cli").rglob("*.py"),
               ROOT / "deploy" / "gunicorn.conf.py"]
    for source in sources:
        text = source.read_text(encoding="utf-8")
        names |= set(re.findall(r"""(?:environ|env)(?:\.get\(|\[)\s*["']((?:MANILLE|REDIS|WEB|PROMETHEUS)_[A-Z0-9_]+)["']""", text))
        # a secret or a token, read by a helper given the environment and its name, or from name_FILE
        for name in re.findall(r"""\w+\(environ,\s*["']((?:MANILLE|REDIS)_[A-Z0-9_]+)["']""", text):
            names |= {name, f"{name}_FILE"}
    names |= {f"MANILLE_LIMIT_{name.upper()}" for name in DEFAULT_LIMITS}
    names |= {f"MANILLE_FLAG_{name.upper()}" for name in FlagSettings.__dataclass_fields__}
    return {n for n in names if not n.endswith("_")}


def test_the_configuration_table_names_every_setting():
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    table = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    missing = []
    for name in sorted(settings_read_by_the_code()):
        short = "…_" + name.removeprefix("MANILLE_FLAG_") if name.startswith("MANILLE_FLAG_") else None
        if f"`{name}`" not in table and not (short and f"`{short}`" in table):
            missing.append(name)
    assert missing == [], f"docs/operations.md, Configuration: not in the table: {missing}"
    assert len(settings_read_by_the_code()) > 60  # the scan still finds them


def spec_sections(spec: Path = ROOT / "docs" / "spec.md") -> set[str]:
    """The section numbers of docs/spec.md's headings ("6", "6.3", …)."""
    return set(SPEC_HEADING.findall(FENCE.sub("", spec.read_text(encoding="utf-8"))))


def bad_spec_references(files, sections: set[str]) -> list[str]:
    """Each "docs/spec.md §M" (or "§M–N") of ``files`` whose M or N is not a section of the spec,
    and each reference to the old rules document, as "file:line: text"."""
    problems = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # a binary file holds no reference
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        for n, line in enumerate(text.splitlines(), 1):
            if OLD_RULES in line:
                problems.append(f"{where}:{n}: {line.strip()} (the old rules document is not in the project)")
            for m in SPEC_REF.finditer(line):
                missing = [s for s in m.groups() if s and s not in sections]
                if missing:
                    problems.append(f"{where}:{n}: {m.group(0)} (no section {', '.join(missing)} in docs/spec.md)")
    return problems


def test_every_markdown_page_is_checked():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"UPGRADING.md", "docs/spec.md", "docs/bots.md"} <= names
    assert not any(name.startswith(".venv/") for name in names)


def test_references_to_the_specification_name_its_sections():
    sections = spec_sections()
    assert {"3.3", "6.3", "9", "10.3", "11", "12.1"} <= sections  # the headings are still read
    assert bad_spec_references(project_files(), sections) == []


def test_the_reference_check_catches_a_bad_one(tmp_path):
    spec = tmp_path / "spec.md"
    spec.write_text("# Spec\n\n## 6. Play\n\n### 6.3 Legal cards\n\n```\n## 99. in a block\n```\n")
    sections = spec_sections(spec)
    assert sections == {"6", "6.3"}
    code = tmp_path / "code.py"
    ref = "docs/spec.md" + " §"  # in pieces: this file names no missing section itself
    code.write_text(f"# legal cards ({ref}6.3)\n# all of play ({ref}6)\n"
                    f"# a range ({ref}6–6.3)\n# gone ({ref}6.9)\n"
                    f"# old ({OLD_RULES}4)\n# a bad end ({ref}6–7)\n")
    found = [p.split(": ", 1)[1] for p in bad_spec_references([code], sections)]
    assert found == [f"{ref}6.9 (no section 6.9 in docs/spec.md)",
                     f"# old ({OLD_RULES}4) (the old rules document is not in the project)",
                     f"{ref}6–7 (no section 7 in docs/spec.md)"], found
