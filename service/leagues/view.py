"""A league as one of its members reads it: its roster (each member by a handle, never by a name
two may show alike) and its boards, read from the public ones."""

from __future__ import annotations

import hashlib
import re
import secrets

from service.players import nickname as nicknames

from .invites import JOIN_PATH, invite_of

#: A member's handle: how the owner names whom to remove (a nickname two members may show alike,
#: or none); hex digits of a hash of the league's salt and the member, no clue to the player.
HANDLE_RE = re.compile(r"[0-9a-f]{16}")


def member_handle(salt: str, pid: str) -> str:
    """A member's handle in a league (``HANDLE_RE``): the same for the same player and league,
    another in another league, no clue to the player."""
    return hashlib.sha256(f"{salt}|{pid}".encode()).hexdigest()[:16]


class LeagueView:
    """A league as one of its members reads it: its fields, its members in the order they joined,
    their names, and who is reading."""

    def __init__(self, league_id: str, head: dict, members: list[str], names: dict, pid: str) -> None:
        self.id = league_id
        self.head = head
        self.members = members
        self.names = names
        self.pid = pid

    @property
    def owner(self) -> str:
        return self.head.get("owner", "")

    def name_of(self, pid: str) -> str | None:
        """The name the league shows for member ``pid`` (one they hold), or None: listed without one."""
        return self.names.get(pid) or None

    def handle(self, pid: str) -> str:
        return member_handle(self.head.get("salt") or self.id, pid)  # leagues made before salts: their id

    def member_by_handle(self, handle: str) -> str | None:
        """The member whose handle is ``handle``, if any."""
        if not HANDLE_RE.fullmatch(handle):
            return None
        return next((pid for pid in self.members if secrets.compare_digest(self.handle(pid), handle)), None)

    def to_json(self) -> dict:
        invite = invite_of(self.id, self.head.get("invite", ""))
        return {"league_id": self.id, "name": self.head.get("name", ""), "invite": invite,
                "invite_url": JOIN_PATH + invite, "members": len(self.members), "owner": self.owner == self.pid,
                "created_at": self.head.get("created_at", ""),
                "roster": [{"member": self.handle(p), "nickname": self.name_of(p), "owner": p == self.owner,
                            "me": p == self.pid} for p in self.members]}

    def board(self, board, found: dict) -> dict:
        """The league's board of ``board`` from its members' entries on the public one (``found``:
        ``Leaderboard.entries_of``): ranks within the league shared by equal values (1, 2, 2, 4),
        in the public board's order, beside the public rank; the members not on it after."""
        on = sorted(((pid, e) for pid, e in found["entries"].items()), key=lambda pe: -pe[1]["composite"])
        entries, rank, prev = [], 0, None
        for i, (pid, e) in enumerate(on):
            if e["value"] != prev:
                rank, prev = i + 1, e["value"]
            entry = {"rank": rank, "member": self.handle(pid), "nickname": self.name_of(pid)}
            if board.kind == "day":
                entry["score"] = e["value"]
            else:
                entry.update(sum=e["value"], days=e["days"])
            entry.update(public_rank=e["public_rank"], me=pid == self.pid)
            entries.append(entry)
        absent = sorted((self.name_of(p) for p in self.members if p not in found["entries"]),
                        key=lambda n: (n is None, nicknames.fold(n or ""), n or ""))
        return {"league_id": self.id, "name": self.head.get("name", ""), "board": board.kind, "period": board.id,
                "members": len(self.members), "public_total": found["total"], "entries": entries,
                "not_played": absent}
