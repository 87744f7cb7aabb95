"""Nicknames: what a player may be called on the boards, and when two nicknames are one name.

Every Unicode fact here comes from one place, ICU (through PyICU, pinned in pyproject.toml):
normalisation, general categories, Default_Ignorable_Code_Point, grapheme clusters, scripts and
UTS #39's confusables data and restriction levels.  One library means one Unicode version, so
the rules cannot disagree with each other; and nothing here is a hand-made table of look-alikes.

The rules (README, "Nicknames"), each refusal a :class:`NicknameError` with its own code (422):

- ``normalise``: NFKC (full-width, ligatures and odd spaces become plain), ends trimmed, runs of
  inner spaces made one.  The name is stored as normalised: plain text, never markup — ``<`` and
  ``&`` are kept as typed, and every reader (the page, the JSON) treats the name as text.
- 1 to 24 grapheme clusters (what a reader counts as characters: ``é`` typed as ``e`` + accent
  is one); at most 96 code points as sent (the API document's ``maxLength``), refused before any
  other work, and once normalised (NFKC makes some characters two), so that a stored name can
  always be sent again.
- no control characters, line breaks or whitespace other than single inner spaces; nothing
  invisible (format characters such as ZWJ/ZWNJ, bidi controls, Default_Ignorable code points such
  as the Hangul fillers U+3164/U+115F/U+1160/U+FFA0, variation selectors, U+2800 braille blank,
  a mark repeated or drawn over a letter's own dot); nothing unassigned, private-use or surrogate.
  So emoji ZWJ sequences and emoji variation selectors are refused: the simple honest rule.
- one script, as UTS #39's "highly restrictive" level has it: Common and Inherited characters
  (digits, punctuation, symbols, marks) go with any script; Latin may join Han with Hiragana and
  Katakana (Japanese), Han with Bopomofo, or Han with Hangul (Korean); digits of one system.

Two names are one name (``keys``) when their UTS #39 skeletons match once case is folded.  The
skeleton is the confusables mapping (``Аlice`` Cyrillic, ``a1ice`` → ``alice``); case is folded
both before it (``ALICE`` = ``alice``) and after it (``aIice`` with a capital I is ``alice`` to
UTS #39, and stays so): a name owns both keys, and a name whose keys meet another's is taken.
"""

from __future__ import annotations

import hashlib
import re

import icu

from service.errors import Unprocessable

MAX_CLUSTERS = 24
#: Code points as sent, more refused before normalising (the API document's maxLength, which counts
#: code points): 24 clusters of up to 4, for scripts with marks, not towers of them.  Within it, the
#: 24 clusters are the rule JSON Schema cannot say (422 ``nickname_too_long``).
RAW_MAX = 96
#: Code points once normalised: no more than as sent, so that a stored name can be sent back (a
#: profile's lookup, a league's nickname) though NFKC made some characters two (U+0958 क़).
MAX_CODE_POINTS = RAW_MAX

#: U+2800 BRAILLE PATTERN BLANK draws nothing yet is a symbol (So), in no ignorable property.
BLANK = frozenset("\u2800")

_NFKC = icu.Normalizer2.getNFKCInstance()
_NFD = icu.Normalizer2.getNFDInstance()
_SPACES = re.compile(" {2,}")

_C = icu.UCharCategory
_UNASSIGNED = {_C.UNASSIGNED, _C.PRIVATE_USE_CHAR, _C.SURROGATE}
_CONTROL = {_C.CONTROL_CHAR, _C.LINE_SEPARATOR, _C.PARAGRAPH_SEPARATOR}

# ICU's checks, configured once (check and getSkeleton are thread-safe on a configured checker).
_HIDDEN_OVERLAY = 256  # USPOOF_HIDDEN_OVERLAY (ICU 62+), not exported by PyICU
_CHECKS = (icu.USpoofChecks.RESTRICTION_LEVEL | icu.USpoofChecks.MIXED_NUMBERS
           | icu.USpoofChecks.INVISIBLE | _HIDDEN_OVERLAY)
_SPOOF = icu.SpoofChecker()
_SPOOF.setChecks(_CHECKS)
_SPOOF.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)

#: Every refusal's code (422), as README lists them; ``nickname_taken`` (409) is the claim's.
CODES = ("nickname_empty", "nickname_too_long", "nickname_control", "nickname_invisible",
         "nickname_unassigned", "nickname_mixed_script", "nickname_mark_first")
#: Combining marks (Mn, Me): drawn over the character before them, so never a name's first (alone,
#: one draws over whatever the page shows before the name).
_MARKS = {_C.NON_SPACING_MARK, _C.ENCLOSING_MARK}


class NicknameError(Unprocessable):
    """A nickname refused by the rules; ``code`` names the rule (one of ``CODES``)."""


def _codepoint(ch: str) -> str:
    return f"U+{ord(ch):04X}"


def _space(ch: str) -> bool:
    return icu.Char.hasBinaryProperty(ch, icu.UProperty.WHITE_SPACE)


def normalise(text: str) -> str:
    """NFKC, White_Space trimmed from both ends, inner runs of spaces made one space; refuses
    nothing (``validate`` does: a tab or line break inside the name, say)."""
    name = _NFKC.normalize(text)
    start, end = 0, len(name)
    while start < end and _space(name[start]):
        start += 1
    while end > start and _space(name[end - 1]):
        end -= 1
    return _SPACES.sub(" ", name[start:end])


def clusters(text: str) -> int:
    """How many grapheme clusters (extended, UAX #29) ``text`` has."""
    if not text:
        return 0
    it = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())  # not thread-safe: one per call
    it.setText(text)
    return sum(1 for _ in it)  # one boundary after each cluster


def _refuse_character(ch: str, what: str, prefix: str, error: type) -> None:
    kind = icu.Char.charType(ch)
    if kind in _UNASSIGNED:
        raise error(f"{what} may not contain {_codepoint(ch)} (unassigned, private-use or surrogate)",
                    code=f"{prefix}_unassigned", character=_codepoint(ch))
    if kind in _CONTROL or (ch != " " and _space(ch)):
        raise error(f"{what} may not contain {_codepoint(ch)} (a control character, a line break, or a "
                    f"space other than one between words)", code=f"{prefix}_control", character=_codepoint(ch))
    if (kind == _C.FORMAT_CHAR or ch in BLANK
            or icu.Char.hasBinaryProperty(ch, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)):
        raise error(f"{what} may not contain {_codepoint(ch)} (an invisible character)",
                    code=f"{prefix}_invisible", character=_codepoint(ch))


def check_text(name: str, *, what: str, prefix: str, error: type, max_clusters: int, max_code_points: int) -> int:
    """What every name shown to others must be (a nickname, a league's name): ``name`` (normalised)
    not empty, at most ``max_code_points`` and ``max_clusters`` grapheme clusters, no control,
    invisible or unassigned character, no accent repeated or drawn over a letter's own dot, not
    beginning with a combining mark (Mn, Me; so not one alone either).  Raises ``error`` with the
    code ``<prefix>_empty``, ``_too_long``, ``_control``, ``_invisible``, ``_unassigned`` or
    ``_mark_first``; returns ICU's spoof checks of it (for the script rules)."""
    if not name:
        raise error(f"{what} has at least one visible character", code=f"{prefix}_empty")
    if icu.Char.charType(name[0]) in _MARKS:
        raise error(f"{what} may not begin with a combining mark ({_codepoint(name[0])}): it is drawn over "
                    f"whatever comes before the name", code=f"{prefix}_mark_first", character=_codepoint(name[0]))
    if len(name) > max_code_points:
        raise error(f"{what} has at most {max_code_points} code points", code=f"{prefix}_too_long",
                    limit=max_code_points)
    for ch in dict.fromkeys(name):  # each distinct character once
        _refuse_character(ch, what, prefix, error)
    if clusters(name) > max_clusters:
        raise error(f"{what} has at most {max_clusters} characters", code=f"{prefix}_too_long", limit=max_clusters)
    found = _SPOOF.check(name)
    if found & (icu.USpoofChecks.INVISIBLE | _HIDDEN_OVERLAY):
        raise error(f"{what} may not repeat an accent or draw one over a letter's own dot", code=f"{prefix}_invisible")
    return found


def validate(name: str) -> str:
    """``name`` (already normalised) if the rules allow it; raises NicknameError for the first
    broken rule: empty, too many code points, each character in turn, too many clusters, scripts."""
    found = check_text(name, what="a nickname", prefix="nickname", error=NicknameError,
                       max_clusters=MAX_CLUSTERS, max_code_points=MAX_CODE_POINTS)
    if found & (icu.USpoofChecks.RESTRICTION_LEVEL | icu.USpoofChecks.MIXED_NUMBERS):
        raise NicknameError("a nickname is written in one script (Latin with Japanese or Korean "
                            "excepted) and with digits of one kind", code="nickname_mixed_script")
    return name


def parse(text: str) -> str:
    """The nickname ``text`` stands for: refused cheaply when too long as sent, then normalised and
    validated; raises NicknameError."""
    if len(text) > RAW_MAX:
        raise NicknameError(f"a nickname has at most {MAX_CLUSTERS} characters",
                            code="nickname_too_long", limit=MAX_CLUSTERS)
    return validate(normalise(text))


def skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, Default_Ignorable code points removed, each character mapped to its
    confusables.txt prototype, NFD again.  Case-sensitive, as UTS #39 defines it."""
    return _SPOOF.getSkeleton(0, text)


def fold(text: str) -> str:
    """Full Unicode case folding (``ß`` → ``ss``, ``İ`` → ``i̇``), in NFD."""
    return _NFD.normalize(str(icu.UnicodeString(text).foldCase()))


def keys(name: str) -> tuple[str, ...]:
    """The claim keys of a normalised name: hashes of its skeleton with case folded before
    (``ALICE`` = ``alice``) and after (``aIice`` = ``alice``); one name holds both."""
    forms = {skeleton(fold(name)), fold(skeleton(name))}
    return tuple(sorted(hashlib.sha256(f.encode()).hexdigest()[:32] for f in forms))


__all__ = ["CODES", "MAX_CLUSTERS", "MAX_CODE_POINTS", "RAW_MAX", "NicknameError", "check_text", "clusters", "fold",
           "keys", "normalise", "parse", "skeleton", "validate"]
