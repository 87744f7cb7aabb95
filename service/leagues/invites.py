"""A league's invite: its code is the league's id followed by a secret, so a join is answered in the
league's own slot with no index of codes; and the one answer to anything that names no league the
caller may see."""

from __future__ import annotations

import re

from service.errors import NotFound

ID_LENGTH = 16  # secrets.token_urlsafe(12): 96 bits, only a name (the secret is what admits)
SECRET_LENGTH = 22  # secrets.token_urlsafe(16): 128 bits
ID_RE = re.compile(r"[A-Za-z0-9_-]{%d}" % ID_LENGTH)
INVITE_RE = re.compile(r"([A-Za-z0-9_-]{%d})([A-Za-z0-9_-]{%d})" % (ID_LENGTH, SECRET_LENGTH))
#: Where the page that joins by an invite lives (``service.web``).
JOIN_PATH = "/leagues/join/"


def unknown_league() -> NotFound:
    """The one answer to a league the caller may not see: none, gone, not a member, a wrong or old
    invite (never "it exists, but not for you")."""
    return NotFound("no such league for this player (or the invite is wrong or no longer valid)",
                    code="unknown_league")


def invite_of(league_id: str, secret: str) -> str:
    return league_id + secret


def split_invite(invite) -> tuple[str, str]:
    """(league id, secret) of an invite code; the unknown league's NotFound for anything else."""
    m = INVITE_RE.fullmatch(invite) if isinstance(invite, str) else None
    if not m:
        raise unknown_league()
    return m.group(1), m.group(2)


def check_id(league_id) -> str:
    if not isinstance(league_id, str) or not ID_RE.fullmatch(league_id):
        raise unknown_league()
    return league_id
