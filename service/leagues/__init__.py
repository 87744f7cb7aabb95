"""Leagues: a few players who know each other, and the boards of their members only.

A league has a name, an owner (the player who created it, until they leave), its members and an
invite: anyone holding the invite code joins with their player token.  The code is the league's
id followed by a secret of 128 bits (``secrets.token_urlsafe(16)``), so a join is answered in
the league's own slot without an index of codes; a new invite replaces the secret, and the old
code stops working at once.

Keys (``store.key_for``), each league under its own hash tag ``{league:<id>}``, so that every
script of a league touches one slot: ``league`` (name, owner, invite secret, created_at, the salt
of its members' handles), ``members`` (pid -> when joined, ms: the owner's heir is the earliest),
``member_names`` (pid -> the nickname the league shows, "" for none; the same pids as ``members``,
written and deleted with them, so a board reads the names alone) and ``removed`` (pids the owner
removed, who may not join again under the current invite).  A name shown is one its member holds
(a verified game of theirs was submitted under it: ``Players.held_name``), written when they join
and again whenever they come to hold a new one (``member_renamed``); a name only claimed is never
shown, so no one is listed under a name that is, or may become, another player's.  Members are
named by a handle (``member_handle``), never by a name two of them may show alike.  A league's
keys live ``IDLE_SECONDS`` after a member last opened, read or changed it; the last member to
leave deletes them at once.  Each
player's leagues are a sorted set in the player's slot (``{player:<pid>}``, scored by when each
place was taken): a join first takes a place there (``reserve.lua``: at most ``MAX_LEAGUES``, two
joins at once cannot both pass), then joins in the league's slot, and gives the place back if the
league refused.  The members are the truth; a player's set is an index of them: an entry whose
league does not have the player, left behind by a step that did not finish (a crash, a league
deleted while one of its members was offline), is dropped when the player's leagues are next read
(``mine``), once it is older than ``SETTLE_MS`` (a younger one is a join still under way).

A league's boards are the public boards read for its members: nothing is written per league when
a score lands, so a score held, disqualified or rebuilt leaves the league's boards exactly as it
leaves the public ones.  A board read is two round trips whatever the league's size: the
league's members (its slot), then their entries and public ranks on the public board (one script
in the board's slot: ``Leaderboard.entries_of``).  Members are known to each other by nickname
and handle only: no answer carries another member's token or pid.  The invite's code is
``invites``'s, a league as a member reads it (roster, handles, boards) ``view``'s.
"""

from __future__ import annotations

import secrets
import time
from datetime import datetime

from service.errors import Conflict, Forbidden, NotFound, Unprocessable
from service.players import nickname as nicknames
from service.store import key_for, load_script, pipelined, run_replicated, run_replicated_each

from .invites import (ID_LENGTH, ID_RE, INVITE_RE, JOIN_PATH, SECRET_LENGTH, check_id, invite_of,  # noqa: F401
                      split_invite, unknown_league)
from .view import HANDLE_RE, LeagueView, member_handle  # noqa: F401

#: The most members a league may have, and the most leagues a player may be in (owned or joined).
MAX_MEMBERS = 500
MAX_LEAGUES = 20
#: A league's name: 1 to 40 characters as a reader counts them (grapheme clusters).
NAME_CLUSTERS = 40
#: Code points as sent (more refused at once: the document's maxLength) and once normalised (so a
#: stored name can be sent back): 40 clusters of up to 4, for scripts with marks.
NAME_RAW_MAX = 160
NAME_CODE_POINTS = NAME_RAW_MAX

#: Kinds no other family of keys uses (a rebuild of the boards wipes the boards' kinds by pattern).
LEAGUE_KINDS = ("league", "members", "member_names", "removed")
#: A place in a player's leagues whose league does not have them is a join under way this long
#: after it was taken, and left behind by one that never finished after that.
SETTLE_MS = 60_000
#: A league no member has opened, read a board of or changed for this long is gone, keys and all
#: (a league made and forgotten, or whose members' tokens were never used again); so is a
#: player's list of leagues they have not read or added to.  Every such use keeps it this long.
IDLE_SECONDS = 90 * 86400


class LeagueNameError(Unprocessable):
    """A league name refused by the rules (``league_name_empty``, ``_too_long``, ``_control``,
    ``_invisible``, ``_unassigned``, ``_mark_first``)."""


def parse_name(text: str) -> str:
    """A league's name as stored and shown: normalised as a nickname is (NFKC, ends trimmed, inner
    spaces one), 1 to 40 characters, no control, invisible or unassigned character.  Any script,
    mixed or not: a league's name claims no one's identity.  Text, never markup."""
    if len(text) > NAME_RAW_MAX:
        raise LeagueNameError(f"a league's name has at most {NAME_CLUSTERS} characters",
                              code="league_name_too_long", limit=NAME_CLUSTERS)
    name = nicknames.normalise(text)
    nicknames.check_text(name, what="a league's name", prefix="league_name", error=LeagueNameError,
                         max_clusters=NAME_CLUSTERS, max_code_points=NAME_CODE_POINTS)
    return name


def not_owner() -> Forbidden:
    return Forbidden("only the league's owner may do this", code="not_league_owner")


def _scope(league_id: str) -> str:
    return f"league:{league_id}"


def league_keys(league_id: str) -> list[str]:
    """A league's keys, in the order its scripts name them."""
    return [key_for(kind, _scope(league_id)) for kind in LEAGUE_KINDS]


def player_leagues_key(pid: str) -> str:
    """The ids of the leagues a player is in, in the player's slot."""
    return key_for("leagues", f"player:{pid}")


class Leagues:
    def __init__(self, client, wait_ms: int = 0) -> None:
        self.r = client
        self.wait_ms = wait_ms  # on a cluster, a change waits for a replica (``store.run_replicated``)
        self._reserve = load_script(client, __file__, "reserve.lua")
        self._create = load_script(client, __file__, "create.lua")
        self._join = load_script(client, __file__, "join.lua")
        self._leave = load_script(client, __file__, "leave.lua")
        self._owner_only = load_script(client, __file__, "manage.lua")
        self._member_name = load_script(client, __file__, "member_name.lua")

    def _run(self, script, keys: list, args: list):
        return run_replicated(self.r, script, keys, args, self.wait_ms)[0]

    # -- reading -------------------------------------------------------------

    def _read(self, league_id: str) -> tuple[dict, list[tuple[str, float]], dict]:
        """The league's fields, its members (pid, when joined) in the order they joined and their
        names: one round trip in its slot, which keeps the league ``IDLE_SECONDS`` more."""
        keys = league_keys(league_id)
        head, joined, shown, *_kept = pipelined(self.r, lambda pipe: [
            pipe.hgetall(keys[0]), pipe.zrange(keys[1], 0, -1, withscores=True), pipe.hgetall(keys[2]),
            *[pipe.expire(k, IDLE_SECONDS) for k in keys]])
        return head, joined, shown

    def view(self, league_id: str, pid: str) -> "LeagueView":
        """The league as its member ``pid`` sees it; the unknown league's NotFound for anyone else."""
        head, joined, names = self._read(check_id(league_id))
        if not head or pid not in {p for p, _ in joined}:
            raise unknown_league()
        return LeagueView(league_id, head, [p for p, _ in joined], names, pid)

    def members_of(self, league_id: str, pid: str) -> "LeagueView":
        """The league as a board needs it (its name, its members and their names: one round trip,
        the names alone carrying the members), for its member ``pid``; the unknown league's
        NotFound for anyone else.  The members are in no particular order."""
        keys = league_keys(check_id(league_id))
        (name, salt), shown, *_kept = pipelined(self.r, lambda pipe: [
            pipe.hmget(keys[0], ["name", "salt"]), pipe.hgetall(keys[2]),
            *[pipe.expire(k, IDLE_SECONDS) for k in keys]])
        if name is None or pid not in shown:
            raise unknown_league()
        return LeagueView(league_id, {"name": name, "salt": salt or ""}, list(shown), shown, pid)

    def peek(self, invite: str, pid: str | None) -> dict:
        """What an invite shows before joining: the league's name, how many members, whether
        ``pid`` is one already and whether it is full; the unknown league's NotFound for a wrong or
        old code, or for a member the owner removed."""
        league_id, secret = split_invite(invite)
        league, members, _names, removed = league_keys(league_id)
        name, current, size, is_member, was_removed = pipelined(self.r, lambda pipe: [
            pipe.hget(league, "name"), pipe.hget(league, "invite"), pipe.zcard(members),
            pipe.zscore(members, pid or "-"), pipe.sismember(removed, pid or "-")])
        if current is None or not secrets.compare_digest(current, secret) or was_removed:
            raise unknown_league()
        return {"league_id": league_id, "name": name, "members": size, "member": is_member is not None,
                "full": size >= MAX_MEMBERS}

    def mine(self, pid: str, now_ms: int | None = None) -> list[dict]:
        """The leagues ``pid`` is a member of, in the order joined: id, name, members, owner.  Ids
        in the player's set of a league that is gone or does not have them are dropped from it once
        older than ``SETTLE_MS``."""
        listed, _kept = pipelined(self.r, lambda pipe: [
            pipe.zrange(player_leagues_key(pid), 0, -1, withscores=True), pipe.expire(player_leagues_key(pid), IDLE_SECONDS)])
        taken = dict(listed)
        ids = sorted(taken)
        if not ids:
            return []
        now_ms = now_ms if now_ms is not None else int(time.time() * 1000)

        def queue(pipe):
            for league_id in ids:
                league, members, _names, _removed = league_keys(league_id)
                pipe.hmget(league, ["name", "owner"])
                pipe.zscore(members, pid)
                pipe.zcard(members)
        replies = pipelined(self.r, queue)
        out, stale = [], []
        for i, league_id in enumerate(ids):
            (name, owner), joined, size = replies[3 * i:3 * i + 3]
            if name is None or joined is None:
                if now_ms - taken[league_id] > SETTLE_MS:
                    stale.append(league_id)
                continue
            out.append({"league_id": league_id, "name": name, "members": size, "owner": owner == pid,
                        "_joined": joined})
        if stale:
            self.r.zrem(player_leagues_key(pid), *stale)
        out.sort(key=lambda e: (e.pop("_joined"), e["league_id"]))
        return out

    # -- joining -------------------------------------------------------------

    def _take_place(self, pid: str, league_id: str) -> int:
        """A place in the player's leagues (``reserve.lua``); Conflict ``too_many_leagues`` when
        they are in ``MAX_LEAGUES`` already (counted after dropping what is stale)."""
        for attempt in range(2):
            took = self._run(self._reserve, [player_leagues_key(pid)],
                             [league_id, MAX_LEAGUES, int(time.time() * 1000), IDLE_SECONDS])
            if took:
                return int(took)
            if attempt == 0:
                self.mine(pid)  # drops the leagues that are gone, then try once more
        raise too_many_leagues()

    def room(self, pid: str) -> None:
        """Conflict ``too_many_leagues`` if ``pid`` may join no other league (checked before a new
        nickname is claimed; ``reserve.lua`` checks again, atomically)."""
        if self.r.zcard(player_leagues_key(pid)) >= MAX_LEAGUES and len(self.mine(pid)) >= MAX_LEAGUES:
            raise too_many_leagues()

    def _give_back(self, pid: str, league_id: str) -> None:
        self.r.zrem(player_leagues_key(pid), league_id)

    def create(self, pid: str, name: str, nickname: str | None, now: datetime) -> "LeagueView":
        """A new league named ``name`` (parsed: ``parse_name``) with ``pid`` as owner and member
        shown as ``nickname`` (a name they hold) or without one; Conflict ``too_many_leagues``."""
        for _attempt in range(5):
            league_id = secrets.token_urlsafe(12)
            if not ID_RE.fullmatch(league_id):  # pragma: no cover - token_urlsafe(12) is 16 such characters
                continue
            self._take_place(pid, league_id)
            created = self._run(self._create, league_keys(league_id)[:3],
                                [name, pid, secrets.token_urlsafe(16), now.isoformat(), int(now.timestamp() * 1000),
                                 nickname or "", secrets.token_hex(8), IDLE_SECONDS])
            if created:
                return self.view(league_id, pid)
            self._give_back(pid, league_id)  # pragma: no cover - an id drawn twice in 96 bits
        raise RuntimeError("no free league id after 5 draws")  # pragma: no cover

    def join(self, invite: str, pid: str, nickname: str | None, now: datetime) -> tuple["LeagueView", bool]:
        """``pid`` joins the league of ``invite`` shown as ``nickname`` (a name they hold) or without
        one; (the league, joined now).  The same player again is answered as a member (False), its
        name unchanged (``member_renamed`` changes it).  NotFound ``unknown_league``, Conflict
        ``league_full``, ``too_many_leagues``."""
        league_id, secret = split_invite(invite)
        self._take_place(pid, league_id)
        status = self._run(self._join, league_keys(league_id),
                           [secret, pid, nickname or "", int(now.timestamp() * 1000), MAX_MEMBERS, IDLE_SECONDS])
        if status in ("joined", "member"):
            return self.view(league_id, pid), status == "joined"
        self._give_back(pid, league_id)  # not a member: whatever the set held of it was stale
        if status == "full":
            raise league_full()
        raise unknown_league()

    # -- leaving, and the owner's changes ----------------------------------------

    def leave(self, league_id: str, pid: str) -> dict:
        """``pid`` leaves the league: {"deleted": True} if it was the last member, else the new
        owner's pid when the owner left (None otherwise)."""
        status, *rest = self._run(self._leave, league_keys(check_id(league_id)), [pid, pid, IDLE_SECONDS])
        if status == "unknown":
            raise unknown_league()
        self._give_back(pid, league_id)
        return {"deleted": status == "deleted", "heir": (rest[0] or None) if rest else None}

    def remove_member(self, league_id: str, pid: str, member_pid: str) -> "LeagueView":
        """The owner ``pid`` removes ``member_pid`` (who may not join again under this invite)."""
        status, *_rest = self._run(self._leave, league_keys(check_id(league_id)), [pid, member_pid, IDLE_SECONDS])
        if status == "unknown":
            raise unknown_league()
        if status == "not_owner":
            raise not_owner()
        if status == "no_member":
            raise unknown_member()
        self._give_back(member_pid, league_id)
        return self.view(league_id, pid)

    def _manage(self, league_id: str, pid: str, op: str, value: str = "") -> list:
        status, *rest = self._run(self._owner_only, league_keys(check_id(league_id)), [pid, op, value, IDLE_SECONDS])
        if status == "unknown":
            raise unknown_league()
        if status == "not_owner":
            raise not_owner()
        return rest

    def rename(self, league_id: str, pid: str, name: str) -> "LeagueView":
        self._manage(league_id, pid, "rename", name)
        return self.view(league_id, pid)

    def new_invite(self, league_id: str, pid: str) -> "LeagueView":
        self._manage(league_id, pid, "invite", secrets.token_urlsafe(16))
        return self.view(league_id, pid)

    def delete(self, league_id: str, pid: str) -> None:
        """The owner deletes the league; each member's list of leagues loses it (one round trip)."""
        members = self._manage(league_id, pid, "delete")
        pipelined(self.r, lambda pipe: [pipe.zrem(player_leagues_key(m), league_id) for m in members])

    def member_renamed(self, pid: str, nickname: str) -> None:
        """The player came to hold ``nickname`` (a verified game) or chose it among the names they
        hold: every league they are in shows it (one script a league, in one round trip)."""
        ids = self.r.zrange(player_leagues_key(pid), 0, -1)
        if ids:
            run_replicated_each(self.r, [(self._member_name, league_keys(i)[1:3], [pid, nickname]) for i in sorted(ids)],
                                self.wait_ms)


def too_many_leagues() -> Conflict:
    return Conflict(f"a player may be in at most {MAX_LEAGUES} leagues: leave one first", code="too_many_leagues",
                    limit=MAX_LEAGUES)


def unknown_member() -> NotFound:
    return NotFound("no member of this league has that handle (a member is named by the roster's `member`, "
                    "not by nickname: two members may show alike, or show none)", code="unknown_member")


def league_full() -> Conflict:
    return Conflict(f"this league has its {MAX_MEMBERS} members", code="league_full", limit=MAX_MEMBERS)


__all__ = ["HANDLE_RE", "IDLE_SECONDS", "INVITE_RE", "JOIN_PATH", "LeagueNameError", "LeagueView", "Leagues", "MAX_LEAGUES",
           "MAX_MEMBERS", "SETTLE_MS", "league_full", "league_keys", "member_handle", "not_owner", "parse_name",
           "player_leagues_key", "split_invite", "too_many_leagues", "unknown_league", "unknown_member"]
