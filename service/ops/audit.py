"""Reading the audit log (``manille:{all}:audit``, written by ``Ops.audit``): newest first, each
filter narrowing it, and a cursor that reaches every entry.

The stream is read backwards in batches from the cursor (the id of the last entry answered,
exclusive), the filters applied to each entry, until the page is full; ``next`` is the cursor
of the page after, None when nothing is left.  ``offset`` skips that many matching entries
first.  The log holds ops' actions only (hundreds a day), so a scan is a few round trips.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone

from service.errors import Unprocessable
from service.store import key_for

AUDIT = key_for("audit", "all")
BATCH = 500


def parse_since(text: str) -> datetime:
    """A day (``2026-12-07``: from its UTC midnight) or an ISO date-time (UTC when it has no zone);
    Unprocessable ``bad_since`` otherwise."""
    try:
        when = (datetime.fromisoformat(text) if "T" in text or " " in text
                else datetime.combine(date.fromisoformat(text), datetime.min.time()))
    except ValueError:
        raise Unprocessable(f"since: a day (2026-12-07) or an ISO date-time expected, not {text[:40]!r}",
                            code="bad_since") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def operator_of(who: str) -> str:
    """The operator's name in an audit ``who`` (``name@address``)."""
    return who.split("@", 1)[0]


def matches(entry: dict, who: str | None, target: str | None, action: str | None,
            since: datetime | None) -> bool:
    """``who`` matches the operator's name or the whole ``name@address``."""
    if who is not None and who not in (entry.get("who"), operator_of(entry.get("who", ""))):
        return False
    if target is not None and entry.get("target") != target:
        return False
    if action is not None and entry.get("action") != action:
        return False
    if since is not None:
        try:
            at = datetime.fromisoformat(entry.get("at", ""))
        except ValueError:
            return False
        if (at if at.tzinfo else at.replace(tzinfo=timezone.utc)) < since:
            return False
    return True


def read(client, *, who: str | None = None, target: str | None = None, action: str | None = None,
         since: str | None = None, limit: int = 100, offset: int = 0, before: str | None = None) -> dict:
    """``{"entries": [...], "next": cursor or None}``: the matching entries, newest first, from
    just before ``before`` (an entry id), ``offset`` of them skipped.  Unprocessable ``bad_since``
    or ``bad_cursor`` for a value that means nothing."""
    when = parse_since(since) if since else None
    top = "+"
    if before:
        if not _is_id(before):
            raise Unprocessable(f"before: an audit entry id (1733580000000-0) expected, not {before[:40]!r}",
                                code="bad_cursor")
        top = f"({before}"
    out: list[dict] = []
    skip = offset
    while True:
        batch = client.xrevrange(AUDIT, max=top, min="-", count=BATCH)
        for entry_id, fields in batch:
            if not matches(fields, who, target, action, when):
                continue
            if skip:
                skip -= 1
                continue
            out.append({"id": entry_id, **fields})
            if len(out) == limit:
                more = _any_match_before(client, entry_id, who, target, action, when)
                return {"entries": out, "next": entry_id if more else None}
        if len(batch) < BATCH:
            return {"entries": out, "next": None}
        top = f"({batch[-1][0]}"


def _any_match_before(client, entry_id: str, who, target, action, when) -> bool:
    top = f"({entry_id}"
    while True:
        batch = client.xrevrange(AUDIT, max=top, min="-", count=BATCH)
        if any(matches(f, who, target, action, when) for _id, f in batch):
            return True
        if len(batch) < BATCH:
            return False
        top = f"({batch[-1][0]}"


#: A page's cursor, an entry id: Redis's stream id (``ms`` or ``ms-seq``), each part of ASCII digits
#: within 64 bits, which Redis refuses beyond (the API document's pattern).
CURSOR_RE = re.compile(r"[0-9]{1,19}(?:-[0-9]{1,19})?")


def _is_id(text: str) -> bool:
    return CURSOR_RE.fullmatch(text) is not None


def latest(client, target: str, action: str) -> dict | None:
    """The newest entry of ``action`` on ``target`` (who decided it), or None."""
    got = read(client, target=target, action=action, limit=1)["entries"]
    return got[0] if got else None
