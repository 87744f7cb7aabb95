"""Devices: the tokens of one player, each its own, each revocable, and the links that join them.

A device is a token.  Its id is ``pid_of(token)``; its record (``device:{did}``) names the
player it is a device of.  A player's first device has no record until it needs one (it makes a
link, lists its devices): its id *is* the player's pid, so every token issued before devices
existed stays the player it was.  Removing a device writes ``removed_at`` on its record (a
tombstone kept for good: a first device's pid is also its player's, which lives on), so its token
is refused from the next request on, in every web process: ``resolve`` reads the record on every
request (one pipelined round trip, the record and the player key sharing the token's slot).

A link is a code of 10 characters of Crockford's base32 (50 bits), shown as ``XXXXX-XXXXX``;
Redis keeps its SHA-256 only, for ``LINK_SECONDS``, and taking it deletes it (GETDEL: single use).
The code is never logged (the app logs routes, not paths; nginx's access log hides it).

Every link, join, sign-in and removal is written to the player's own trail (``trail``), a capped
stream that ops read beside the rest of a player.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from datetime import datetime, timezone

from service.errors import NotFound, Unauthorized
from service.store import key_for, pipelined

#: A link's code lives this long.
LINK_SECONDS = 600
#: Crockford's base32: no I, L, O, U (read as 1, 1, 0 and refused).
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 10  # 50 bits
CODE_RE = re.compile(f"[{ALPHABET}]{{{CODE_LENGTH}}}")
#: A device's ``last_seen`` is written again once older than this (not on every request).
SEEN_EVERY = 300
#: Entries kept in a player's trail.
TRAIL_KEPT = 500
#: A device's id (a pid's form) and a passkey's.
ID_RE = re.compile(r"[0-9a-f]{24}")
#: What ``resolve`` reads of a device record.
RESOLVE_FIELDS = ("pid", "removed_at", "last_seen")


def device_key(did: str) -> str:
    """A device's record; it shares its slot with the player key of the same id (``{player:did}``)."""
    return key_for("device", f"player:{did}")


def devices_key(pid: str) -> str:
    """A player's devices: device id -> when it joined."""
    return key_for("devices", f"player:{pid}")


def trail_key(pid: str) -> str:
    return key_for("trail", f"player:{pid}")


def link_key(digest: str) -> str:
    return key_for("link", f"link:{digest[:32]}")


def player_key(pid: str) -> str:
    return key_for("player", f"player:{pid}")


def normal_code(text: str) -> str | None:
    """``text`` as a code (case, dashes and spaces ignored, O read as 0, I and L as 1); None if it
    cannot be one."""
    code = re.sub(r"[\s-]", "", text or "").upper().translate(str.maketrans("OIL", "011"))
    return code if CODE_RE.fullmatch(code) else None


def shown_code(code: str) -> str:
    return f"{code[:5]}-{code[5:]}"


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode("ascii")).hexdigest()


def iso(seconds: float | int | str | None) -> str | None:
    if seconds in (None, ""):
        return None
    return datetime.fromtimestamp(int(float(seconds)), timezone.utc).isoformat().replace("+00:00", "Z")


_BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("SamsungBrowser/", "Samsung Internet"),
             ("Chrome/", "Chrome"), ("Chromium/", "Chromium"), ("Safari/", "Safari"))
_SYSTEMS = (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"),
            ("Windows", "Windows"), ("Macintosh", "Mac"), ("Linux", "Linux"))


def label_of(user_agent: str) -> str:
    """A device's label from its user agent: "Firefox on Android"; "" for one that says neither."""
    ua = user_agent or ""
    browser = next((name for mark, name in _BROWSERS if mark in ua), "")
    system = next((name for mark, name in _SYSTEMS if mark in ua), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system


class Devices:
    def __init__(self, client) -> None:
        self.r = client

    # -- a token's player, on every request ------------------------------------------------

    @staticmethod
    def queue_resolve(did: str, pipe) -> None:
        """``resolve``'s reads queued on ``pipe``: two replies, for ``resolved``."""
        pipe.hmget(device_key(did), RESOLVE_FIELDS)
        pipe.exists(player_key(did))

    def resolved(self, did: str, replies, now: float | None = None) -> str:
        """The pid of device ``did`` from ``queue_resolve``'s two replies; Unauthorized
        (``invalid_token``) for a token removed or never issued.  Writes ``last_seen`` when stale."""
        (pid, removed, seen), player = replies
        if removed:
            raise Unauthorized("this device was removed from its player; its token is no longer valid")
        if not pid:
            if not player:
                raise Unauthorized("unknown player token")
            return did  # a first device with no record yet
        now = time.time() if now is None else now
        if not seen or now - int(seen) > SEEN_EVERY:
            self.r.hset(device_key(did), "last_seen", int(now))
        return pid

    def resolve(self, did: str) -> str:
        """The pid of device ``did`` (one round trip); Unauthorized for a removed or unknown one."""
        return self.resolved(did, pipelined(self.r, lambda pipe: self.queue_resolve(did, pipe)))

    # -- records ---------------------------------------------------------------------------

    def keep(self, did: str, pid: str, user_agent: str, joined_at: str | None = None,
             now: float | None = None) -> None:
        """Make sure device ``did`` of ``pid`` has a record (a first device gets one when it first
        needs it: ``joined_at`` its player's creation), and keep the player for good (a record
        outlives a player key that would expire); idempotent, never revives a removed one."""
        now = int(time.time() if now is None else now)
        joined = joined_at or iso(now)
        with self.r.pipeline(transaction=False) as pipe:
            for name, value in (("pid", pid), ("joined_at", joined), ("label", label_of(user_agent)),
                                ("last_seen", now)):
                pipe.hsetnx(device_key(did), name, value)
            pipe.execute()
        with self.r.pipeline(transaction=False) as pipe:
            pipe.hsetnx(devices_key(pid), did, joined)
            pipe.persist(player_key(pid))
            pipe.execute()

    def add(self, pid: str, user_agent: str, how: str, now: float | None = None, **details) -> tuple[str, str]:
        """A new device of ``pid`` (its own new token) joined by ``how`` (link, passkey); returns the
        token (handed out once) and the device id.  Keeps the player for good."""
        from . import pid_of  # the package imports this module first

        token = secrets.token_urlsafe(24)
        did = pid_of(token)
        now = int(time.time() if now is None else now)
        joined = iso(now)
        self.r.hset(device_key(did), mapping={"pid": pid, "joined_at": joined, "label": label_of(user_agent),
                                              "last_seen": now, "how": how})
        with self.r.pipeline(transaction=False) as pipe:
            pipe.hset(devices_key(pid), did, joined)
            pipe.persist(player_key(pid))
            pipe.execute()
        self.note(pid, how, device=did, label=label_of(user_agent), **details)
        return token, did

    def listed(self, pid: str, current: str) -> list[dict]:
        """``pid``'s devices, the earliest first, ``current`` marked; removed ones are not listed."""
        dids = sorted(self.r.hgetall(devices_key(pid)).items(), key=lambda item: (item[1], item[0]))
        records = pipelined(self.r, lambda pipe: [pipe.hgetall(device_key(did)) for did, _ in dids])
        return [{"device_id": did, "label": rec.get("label") or "", "joined_at": rec.get("joined_at") or joined,
                 "last_seen": iso(rec.get("last_seen")), "current": did == current}
                for (did, joined), rec in zip(dids, records)
                if rec.get("pid") == pid and not rec.get("removed_at")]

    def label(self, did: str) -> str:
        return self.r.hget(device_key(did), "label") or ""

    def remove(self, pid: str, did: str, by: str, now: float | None = None) -> None:
        """End device ``did`` of ``pid``: its token is refused from its next request on.  NotFound
        ``unknown_device`` for a device that is not one of ``pid``'s, or already removed."""
        if not ID_RE.fullmatch(did):
            raise NotFound("no such device of this player", code="unknown_device")
        record = self.r.hmget(device_key(did), "pid", "removed_at")
        owner = record[0] or (did if did == pid else None)  # a first device may have no record
        if owner != pid or record[1]:
            raise NotFound("no such device of this player", code="unknown_device")
        now = int(time.time() if now is None else now)
        # the tombstone first: once it is written the token is refused, whatever happens next
        self.r.hset(device_key(did), mapping={"pid": pid, "removed_at": now})
        self.r.hdel(devices_key(pid), did)
        self.note(pid, "device_removed", device=did, by=by)

    # -- links -----------------------------------------------------------------------------

    def new_link(self, pid: str, did: str) -> tuple[str, str]:
        """A new code for ``pid`` (made on device ``did``) and when it expires (ISO 8601)."""
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        digest = code_digest(code)
        self.r.set(link_key(digest), json.dumps({"pid": pid, "from": did, "digest": digest}), ex=LINK_SECONDS)
        self.note(pid, "link_made", device=did)
        return code, iso(time.time() + LINK_SECONDS)

    def take_link(self, text: str) -> dict:
        """The link of code ``text``, taken (single use): ``{"pid", "from"}``.  NotFound
        ``unknown_link`` for a code malformed, wrong, used or expired (the same answer for each)."""
        code = normal_code(text)
        unknown = NotFound("no such link: it is wrong, used or expired", code="unknown_link")
        if code is None:
            raise unknown
        digest = code_digest(code)
        stored = self.r.getdel(link_key(digest))
        link = json.loads(stored) if stored else None
        if not link or not hmac.compare_digest(link.get("digest", ""), digest):
            raise unknown
        return link

    # -- the trail -------------------------------------------------------------------------

    def note(self, pid: str, action: str, **details) -> None:
        """Write ``action`` (link_made, link_used, joined_by_link, passkey_added, passkey_sign_in,
        passkey_removed, device_removed) to ``pid``'s trail."""
        fields = {"at": iso(time.time()), "action": action}
        fields.update({k: str(v) for k, v in details.items() if v not in (None, "")})
        self.r.xadd(trail_key(pid), fields, maxlen=TRAIL_KEPT, approximate=True)


def trail(client, pid: str, count: int = 100) -> list[dict]:
    """The latest entries of ``pid``'s trail (its devices' links, joins, sign-ins and removals),
    newest first: ``{"id", "at", "action", ...}``; [] for a player with none."""
    return [{"id": entry_id, **fields} for entry_id, fields in client.xrevrange(trail_key(pid), count=count)]
