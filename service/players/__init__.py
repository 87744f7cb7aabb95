"""Players: opaque bearer tokens and the nicknames they claim.

A token is ``secrets.token_urlsafe(24)``, handed to the client once.  Redis never stores it:
a player is known by ``pid``, a hash of the token, which is also what the leaderboards list
(never the token itself, which is a credential).  A token is one device of its player: a first
token's pid is its player's, and the player's other devices have tokens of their own, each
resolved to the player on every request (``devices``).  A token costs nothing to get (a first run
makes one), so a player's key is kept ``keep`` seconds after the player last opened a run, and
for good once they submit a game.

A nickname is held by a player once a game submitted under it is verified; until then the claim
is pending (one per player, released after ``CLAIM_SECONDS`` if its game is never verified), and
a name held or pending is taken for everyone else.  Only a submission claims a name, and only a
verified game makes one the player's: what others are shown of a player (leagues, duels) is the
name they hold (``held_name``), never one merely claimed.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time

from service.errors import Conflict, Unauthorized
from service.store import evalsha_on, key_for, load_script, pipelined

from . import nickname as nicknames
from .devices import Devices

TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")
#: claim key (``nickname.keys``) -> pid: who holds each nickname (a game under it was verified).
NICKNAME_OWNERS = key_for("nicknames", "nicks")
#: The pending claims: claim key -> pid, pid -> its keys, pid -> when (zset, ms).
NICKNAME_CLAIMS = (key_for("nicknames", "nicks", "pending"), key_for("nicknames", "nicks", "pending_of"),
                   key_for("nicknames", "nicks", "pending_since"))
#: A claim whose game is not verified within this is released (a verification takes seconds; a
#: delayed one that ops requeue later claims the name again at its verdict, if it is still free).
CLAIM_SECONDS = 86400
#: How long a player key is kept after its player last opened a run, unless they submitted.
DEFAULT_KEEP_SECONDS = 30 * 86400
#: How many replies ``queue_known`` queues.
KNOWN_REPLIES = 2


def pid_of(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()[:24]


#: How long an erased player's key stays refused a new making (``opened``): a request already
#: on its way when the player erased themselves must not make it again.
ERASED_SECONDS = 86400


class Players:
    def __init__(self, client, keep: int = DEFAULT_KEEP_SECONDS) -> None:
        self.r = client
        self.keep = keep
        self._claim = load_script(client, __file__, "claim_nickname.lua")
        self._confirm = load_script(client, __file__, "confirm_nickname.lua")
        self._touch = load_script(client, __file__, "touch_player.lua")
        self._rekey = load_script(client, __file__, "hold_nickname.lua")
        self.devices = Devices(client)

    @staticmethod
    def _key(pid: str) -> str:
        return key_for("player", f"player:{pid}")

    @staticmethod
    def erased_key(pid: str) -> str:
        """Set for ``ERASED_SECONDS`` when the player erased themselves: their key is not made again."""
        return key_for("erased", f"player:{pid}")

    @staticmethod
    def new_token() -> tuple[str, str]:
        """A new token and its pid, not yet registered (see ``register``)."""
        token = secrets.token_urlsafe(24)
        return token, pid_of(token)

    def opened(self, pid: str, now_iso: str) -> None:
        """The player opened a run (a new token's first, so a refused request issues nothing):
        its key, made if new, is kept ``keep`` seconds from now, or for good once it submitted."""
        if self._touch(keys=[self._key(pid), self.erased_key(pid)], args=[self.keep, now_iso]) < 0:
            raise Unauthorized("unknown player token")

    def authenticate(self, token: str | None) -> str:
        """The pid of the player whose device holds ``token``; raises Unauthorized for no token,
        one never issued, or one whose device was removed (asked of Redis on every request: a
        removal holds at once in every process)."""
        return self.devices.resolve(self.claimed_pid(token))

    def device(self, token: str | None) -> tuple[str, str]:
        """``authenticate``, with the device: (device id, pid)."""
        did = self.claimed_pid(token)
        return did, self.devices.resolve(did)

    @staticmethod
    def claimed_pid(token: str | None) -> str:
        """The device id a token stands for, issued or not (no Redis): the pid of a player's first
        device, whose token made it; Unauthorized if it is no token."""
        if not token or not TOKEN_RE.fullmatch(token):
            raise Unauthorized("a player token is required (X-Player-Token header)")
        return pid_of(token)

    def queue_known(self, did: str, pipe) -> None:
        """``authenticate``'s look-up queued on ``pipe`` (to share a round trip): ``KNOWN_REPLIES``
        replies, for ``known``."""
        self.devices.queue_resolve(did, pipe)

    def known(self, did: str, replies) -> str:
        """The pid of device ``did`` from ``queue_known``'s replies; Unauthorized as ``authenticate``."""
        return self.devices.resolved(did, replies)

    def claim_nickname(self, pid: str, nickname: str, now: float | None = None) -> str:
        """Claim ``nickname`` (parsed: ``nickname.parse``) for ``pid`` as its one pending claim, make
        it the player's name and keep the player for good (it is submitting a game); returns the
        normalised name.  Raises NicknameError (422) for a name the rules refuse, and Conflict
        ``nickname_taken`` (409, nothing written) when another player holds or claims a name it
        is confusable with."""
        name = nicknames.parse(nickname)
        ms = int((time.time() if now is None else now) * 1000)
        answer = self._claim(keys=[NICKNAME_OWNERS, *NICKNAME_CLAIMS],
                             args=[pid, ms, ms - CLAIM_SECONDS * 1000, *nicknames.keys(name)])
        if isinstance(answer, str):
            raise self.taken(name)
        with self.r.pipeline(transaction=False) as pipe:
            pipe.hset(self._key(pid), "nickname", name)
            pipe.persist(self._key(pid))
            pipe.execute()
        return name

    def confirm_nickname(self, pid: str, nickname: str, *, valid: bool) -> int:
        """The verdict on a game ``pid`` submitted as ``nickname``: a ``valid`` one holds the name
        for good (and makes it the player's ``held`` name, the one leagues and duels show, if no
        one else came to hold it meanwhile), one not valid releases its claim; returns how many
        keys ``pid`` holds anew."""
        held = self._confirm(keys=[NICKNAME_OWNERS, *NICKNAME_CLAIMS],
                             args=[pid, "hold" if valid else "release", *nicknames.keys(nickname)])
        if valid and self.holds(pid, nickname):
            self.r.hset(self._key(pid), "held", nickname)
        return held

    def holders(self, nickname: str) -> tuple[set, set]:
        """(the pids holding, the pids claiming) one of the claim keys of ``nickname`` (normalised)."""
        keys = nicknames.keys(nickname)
        held, pending = pipelined(self.r, lambda pipe: [pipe.hmget(NICKNAME_OWNERS, keys),
                                                        pipe.hmget(NICKNAME_CLAIMS[0], keys)])
        return {p for p in held if p}, {p for p in pending if p}

    def holds(self, pid: str, nickname: str) -> bool:
        """Whether ``pid`` holds every claim key of ``nickname`` (normalised): a verified game of
        theirs was submitted under it, or under a look-alike of it."""
        return set(self.r.hmget(NICKNAME_OWNERS, nicknames.keys(nickname))) == {pid}

    def held_name(self, pid: str) -> str | None:
        """The name ``pid``'s last verified game made theirs (what leagues and duels show), else
        None: a name only claimed, or lapsed, is not the player's.  A player whose name was held
        before ``held`` was kept has it found from their last claimed name."""
        held, last = self.r.hmget(self._key(pid), ["held", "nickname"])
        for name in dict.fromkeys(n for n in (held, last) if n):
            if self.holds(pid, name):
                return name
        return None

    def name_of(self, pid: str) -> str | None:
        """The player's own name as they are shown it: the last one claimed while the claim stands
        (held, or pending on a game not yet verified), else the one they hold, else None."""
        last = self.r.hget(self._key(pid), "nickname")
        if last:
            held, pending = self.holders(last)
            if held | pending == {pid}:
                return last
        return self.held_name(pid)


    @staticmethod
    def not_held(name: str) -> Conflict:
        return Conflict(f"the nickname {name!r} is not yours yet: a name becomes a player's when a game they "
                        "submitted under it is verified (join without one: your leagues show it once it is yours)",
                        code="nickname_not_held")

    @staticmethod
    def taken(name: str) -> Conflict:
        return Conflict(f"the nickname {name!r} is taken (it is, or looks like, another player's)",
                        code="nickname_taken")

    def rekey(self, claims) -> dict:
        """Key the claims ``(pid, nickname)`` (oldest first, each a name a player was seen to hold)
        by the current rules, so that a look-alike of an existing claim is taken; names the rules
        now refuse get no key (their holders choose again).  A name whose keys another player holds
        already is a conflict, reported, and the holder keeps them: of two old claims, the older
        holds them (oldest first), but so does a look-alike claimed since the deploy, before this
        ran.  Idempotent.  Returns counts and the ``conflicts`` (name, its player, the holder)."""
        report = {"seen": 0, "keyed": 0, "refused": 0, "conflicts": []}
        batch: list[tuple[str, str]] = []

        def flush() -> None:  # one round trip per batch; the scripts still run one by one, in order
            if not batch:
                return
            # hold_nickname.lua holds each name's keys at once (a name seen held); loaded where missing
            answers = pipelined(self.r, lambda pipe: [
                evalsha_on(pipe, self._rekey, [NICKNAME_OWNERS], [pid, *nicknames.keys(name)])
                for pid, name in batch], [self._rekey])
            for (pid, name), answer in zip(batch, answers):
                if isinstance(answer, str):
                    report["conflicts"].append({"nickname": name, "player": pid, "holder": answer})
                elif answer:
                    report["keyed"] += 1
            batch.clear()

        for pid, raw in dict.fromkeys(claims):
            report["seen"] += 1
            try:
                batch.append((pid, nicknames.parse(raw)))
            except nicknames.NicknameError:
                report["refused"] += 1
            if len(batch) >= 500:
                flush()
        flush()
        return report

    def holder(self, nickname: str) -> str | None:
        """The pid holding ``nickname`` or a name confusable with it; None when nobody holds it, or
        for a text the nickname rules refuse."""
        try:
            name = nicknames.parse(nickname)
        except nicknames.NicknameError:
            return None
        return self.r.hget(NICKNAME_OWNERS, nicknames.keys(name)[0])

    def profile(self, pid: str) -> dict:
        """What is stored of a player: ``created_at`` and the last ``nickname`` claimed."""
        return self.r.hgetall(self._key(pid))
