"""Players: opaque bearer tokens and the nicknames they claim.

A token is ``secrets.token_urlsafe(24)``, handed to the client once.  Redis never stores it:
a player is known by ``pid``, a hash of the token, which is also what the leaderboards list
(never the token itself, which is a credential).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata

from service.errors import Conflict, Unauthorized, Unprocessable
from service.store import key_for

TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")
NICKNAME_MAX = 24


def pid_of(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()[:24]


def normalize_nickname(text: str) -> str:
    """NFKC, stripped; 1–24 characters, all printable (no control, format or separator-line
    characters).  Raises Unprocessable ``invalid_nickname``."""
    if not isinstance(text, str):
        raise Unprocessable("a nickname is a string", code="invalid_nickname")
    name = unicodedata.normalize("NFKC", text).strip()
    if not 1 <= len(name) <= NICKNAME_MAX:
        raise Unprocessable(f"a nickname has 1 to {NICKNAME_MAX} characters", code="invalid_nickname")
    for ch in name:
        cat = unicodedata.category(ch)
        if cat[0] == "C" or cat in ("Zl", "Zp") or (cat == "Zs" and ch != " "):
            raise Unprocessable(f"a nickname may not contain {ch!r}", code="invalid_nickname")
    return name


class Players:
    def __init__(self, client) -> None:
        self.r = client

    @staticmethod
    def _key(pid: str) -> str:
        return key_for("player", f"player:{pid}")

    @staticmethod
    def new_token() -> tuple[str, str]:
        """A new token and its pid, not yet registered (see ``register``)."""
        token = secrets.token_urlsafe(24)
        return token, pid_of(token)

    def register(self, pid: str, now_iso: str) -> None:
        """Make a new token's pid known; done once its first run is stored, so a refused
        request issues nothing."""
        self.r.hset(self._key(pid), mapping={"created_at": now_iso})

    def authenticate(self, token: str | None) -> str:
        """The pid of a token this service issued; raises Unauthorized otherwise."""
        if not token or not TOKEN_RE.fullmatch(token):
            raise Unauthorized("a player token is required (X-Player-Token header)")
        pid = pid_of(token)
        if not self.r.exists(self._key(pid)):
            raise Unauthorized("unknown player token")
        return pid

    def claim_nickname(self, pid: str, nickname: str) -> str:
        """Claim ``nickname`` (normalized) for ``pid``; raises Conflict ``nickname_taken`` if
        another player holds it.  Returns the normalized name."""
        name = normalize_nickname(nickname)
        folded = name.casefold()
        key = key_for("nickname", f"nick:{hashlib.sha256(folded.encode()).hexdigest()[:32]}")
        if not self.r.set(key, pid, nx=True) and self.r.get(key) != pid:
            raise Conflict(f"the nickname {name!r} belongs to another player", code="nickname_taken")
        self.r.hset(self._key(pid), "nickname", name)
        return name

    def profile(self, pid: str) -> dict:
        """What is stored of a player: ``created_at`` and the last ``nickname`` claimed."""
        return self.r.hgetall(self._key(pid))
