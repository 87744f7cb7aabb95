"""Leagues: players who know each other, their invite link, and their boards (the public boards
read for the members only, each entry with its rank in the league beside its public rank).

A league is its members' only: to anyone else (no token, another player, a member removed, a
wrong or old invite) it answers 404 ``unknown_league``, never "it exists, but not for you".  A
member who is not its owner and tries what only the owner may do is 403 ``not_league_owner``.
Members see each other's nicknames and handles, never a token or a player id.  A league shows a
member by a name they hold (a verified game of theirs was submitted under it), or by none: joining
or creating claims no name.  Creating a league, joining one and changing the name one's leagues
show count towards ``leagues_per_token`` and ``leagues_per_address`` (a join answered as a member
already, its name unchanged, counts nothing).
"""

from __future__ import annotations

from flask.views import MethodView

from service.errors import Conflict
from service.leaderboard import ALL_TIME, Board, month_board, week_board
from service.leagues import league_full, not_owner, parse_name, split_invite, unknown_member
from service.players import nickname as nicknames

from . import limits
from .blueprint import Blueprint
from .common import as_documented, current_pid, services, token_from_request
from .leaderboards import _day
from .schemas import (InvitePreviewSchema, LeagueBoardSchema, LeagueCreateSchema, LeagueJoinSchema,
                      LeagueListSchema, LeagueRenameSchema, LeagueSchema)

PREFIX = ""
blp = Blueprint("leagues", __name__, description=(
    "Leagues: a board among friends. A league is visible to its members only (404 unknown_league to "
    "anyone else, a wrong or old invite included); its boards are the public ones read for its members."))
SECURITY = [{"playerToken": []}]
#: Creating and joining issue a token when the request has none, as opening a run does.
OPTIONAL_TOKEN = [{}] + SECURITY


def _player() -> tuple[str, str | None]:
    """(pid, a new token or None): the caller's, or a new player's when no token was sent."""
    s = services()
    token = token_from_request()
    if token is None:
        new_token, pid = s.players.new_token()
        return pid, new_token
    return s.players.authenticate(token), None


def _member_name(pid: str, body: dict, new_player: bool) -> tuple[str | None, bool]:
    """(the nickname the league shows for the caller, or None; whether the body chose it): the
    body's when it is a name the caller holds, else the one they hold (``Players.held_name``).
    422 with the nickname codes for a name the rules refuse; 409 ``nickname_taken`` for a name
    another player holds or claims, ``nickname_not_held`` for one the caller does not hold (yet):
    a name becomes a player's when a game they submitted under it is verified, never by a league."""
    players = services().players
    if body.get("nickname") is None:
        return (None if new_player else players.held_name(pid)), False
    name = nicknames.parse(body["nickname"])
    if not new_player and players.holds(pid, name):
        return name, True
    held, pending = players.holders(name)
    if (held | pending) - {pid}:
        raise players.taken(name)
    raise players.not_held(name)


def _answer(view, new_token: str | None, status: int = 200):
    out = view.to_json()
    if new_token:
        out["player_token"] = new_token
    return as_documented(out, status)


def _settled(pid: str, new_token: str | None, nickname: str | None, chosen: bool) -> None:
    """After a league was created or joined: a new player registered (kept ``player_keep_days``,
    as a first run's token), the name chosen shown in every league of the player."""
    s = services()
    if new_token:
        s.players.opened(pid, s.settings.now().isoformat())  # a new token is known from now
    if chosen and nickname:
        s.leagues.member_renamed(pid, nickname)


def _limits(pid: str) -> limits.Admission:
    return limits.Admission(("leagues_per_token", pid), ("leagues_per_address", limits.client_address()))


def _admitted(pid: str) -> limits.Admission:
    """The checks of a new league or a new member, in the order that leaves nothing behind when one
    refuses: room for one more league (409), then the limits, taken (429); the admission gives
    the count back unless kept."""
    services().leagues.room(pid)
    admission = _limits(pid)
    admission.take()
    return admission


@blp.route("/leagues")
class LeagueList(MethodView):
    @blp.arguments(LeagueCreateSchema)
    @blp.response(201, LeagueSchema)
    @blp.doc(security=OPTIONAL_TOKEN)
    def post(self, body):
        """Create a league: the caller is its owner and first member

        ``name``: 1 to 40 characters, no control or invisible character (422 ``league_name_empty``,
        ``_too_long``, ``_control``, ``_invisible``, ``_unassigned``, ``_mark_first``).  ``nickname``:
        optional, as a join's.  The answer's ``invite`` is the code of the link
        ``/leagues/join/{invite}``.  409 ``too_many_leagues`` (20 a player), ``nickname_taken``,
        ``nickname_not_held``; counts towards ``leagues_per_token`` and ``leagues_per_address``
        (429).  Without a token, one is issued and returned once as ``player_token``."""
        s = services()
        pid, new_token = _player()
        name = parse_name(body["name"])
        nickname, chosen = _member_name(pid, body, new_token is not None)
        with _admitted(pid) as admission:
            view = s.leagues.create(pid, name, nickname, s.settings.now())
            admission.keep()
        _settled(pid, new_token, nickname, chosen)
        return _answer(view, new_token, 201)


@blp.route("/leagues/join")
class LeagueJoin(MethodView):
    @blp.arguments(LeagueJoinSchema)
    @blp.response(200, LeagueSchema)
    @blp.doc(security=OPTIONAL_TOKEN)
    def post(self, body):
        """Join the league of an invite; a member already is answered the same (and counts nothing)

        ``nickname``: optional, one the caller holds (a verified game of theirs was submitted under
        it), shown in every league of theirs; without it the league shows the name they hold, or
        none.  404 ``unknown_league`` for a wrong or old code (or a member its owner removed, under
        that invite); 409 ``league_full`` (500 members), ``too_many_leagues`` (20 a player),
        ``nickname_taken``, ``nickname_not_held``.  Counts towards ``leagues_per_token`` and
        ``leagues_per_address`` (429), as does a member's join that changes their name.  Without a
        token, one is issued and returned once as ``player_token``."""
        s = services()
        pid, new_token = _player()
        split_invite(body["invite"])  # 404 for what is no code, before anything else
        nickname, chosen = _member_name(pid, body, new_token is not None)
        seen = s.leagues.peek(body["invite"], None if new_token else pid)
        if seen["member"]:
            return _answer(_renamed(seen["league_id"], pid, nickname if chosen else None), None)
        if seen["full"]:
            raise league_full()
        with _admitted(pid) as admission:
            view, joined = s.leagues.join(body["invite"], pid, nickname, s.settings.now())
            if joined:
                admission.keep()
        _settled(pid, new_token, nickname, chosen)
        return _answer(view, new_token)


def _renamed(league_id: str, pid: str, nickname: str | None):
    """A member joining again: the league as it is, or, with another name of theirs than it shows,
    that name in every league of theirs, counted in the leagues' limits (429) as a join is."""
    s = services()
    view = s.leagues.view(league_id, pid)
    with _limits(pid) as admission:  # its RateLimit headers, counted or not
        if nickname is None or nickname == view.name_of(pid):
            return view
        admission.take()
        s.leagues.member_renamed(pid, nickname)
        admission.keep()
    return s.leagues.view(league_id, pid)


@blp.route("/leagues/invites/<string:invite>")
class InvitePreview(MethodView):
    @blp.response(200, InvitePreviewSchema)
    @blp.doc(security=[{}] + SECURITY)
    def get(self, invite):
        """What an invite leads to, before joining: the league's name and size, whether the caller
        is a member already, whether it is full

        404 ``unknown_league`` for a wrong or old code."""
        s = services()
        token = token_from_request()
        pid = s.players.authenticate(token) if token else None
        return s.leagues.peek(invite, pid)


@blp.route("/players/me/leagues")
class MyLeagues(MethodView):
    @blp.response(200, LeagueListSchema)
    @blp.doc(security=SECURITY)
    def get(self):
        """The caller's leagues, in the order joined: id, name, members, whether the caller owns it"""
        return {"leagues": services().leagues.mine(current_pid())}


@blp.route("/leagues/<string:league_id>")
class LeagueById(MethodView):
    @blp.response(200, LeagueSchema)
    @blp.doc(security=SECURITY)
    def get(self, league_id):
        """A league: its name, invite, members (handle and nickname, in the order they joined); members only

        404 ``unknown_league`` to anyone else."""
        return _answer(services().leagues.view(league_id, current_pid()), None)

    @blp.arguments(LeagueRenameSchema)
    @blp.response(200, LeagueSchema)
    @blp.doc(security=SECURITY)
    def patch(self, body, league_id):
        """Rename the league (its owner only: 403 ``not_league_owner``); the name's rules as at its
        creation"""
        s = services()
        pid = current_pid()
        name = parse_name(body["name"])
        return _answer(s.leagues.rename(league_id, pid, name), None)

    @blp.response(204)
    @blp.doc(security=SECURITY)
    def delete(self, league_id):
        """Delete the league (its owner only: 403 ``not_league_owner``); its boards were the public
        ones: no score is lost"""
        services().leagues.delete(league_id, current_pid())
        return None


@blp.route("/leagues/<string:league_id>/leave")
class LeagueLeave(MethodView):
    @blp.response(204)
    @blp.doc(security=SECURITY)
    def post(self, league_id):
        """Leave the league.  An owner who leaves hands it to the member who joined first after
        them; the last member to leave deletes it.  404 ``unknown_league`` when not a member"""
        services().leagues.leave(league_id, current_pid())
        return None


@blp.route("/leagues/<string:league_id>/invite")
class LeagueInvite(MethodView):
    @blp.response(200, LeagueSchema)
    @blp.doc(security=SECURITY)
    def post(self, league_id):
        """Make a new invite (its owner only: 403 ``not_league_owner``): the old link stops working
        at once, and members removed under it may join with the new one"""
        return _answer(services().leagues.new_invite(league_id, current_pid()), None)


# <path:…>: what an old client sends (a nickname, which may hold a slash) reaches the clear 404
@blp.route("/leagues/<string:league_id>/members/<path:member>")
class LeagueMember(MethodView):
    @blp.response(200, LeagueSchema)
    @blp.doc(security=SECURITY)
    def delete(self, league_id, member):
        """Remove a member, named by their handle (the roster's ``member``; its owner only: 403
        ``not_league_owner``); they may not join again with the current invite

        404 ``unknown_member`` for a handle no member has (a nickname is no handle: two members may
        show alike, or none); 409 ``cannot_remove_self`` for the owner's own (leave instead)."""
        s = services()
        pid = current_pid()
        view = s.leagues.view(league_id, pid)
        if view.owner != pid:
            raise not_owner()
        member = view.member_by_handle(member)
        if member is None:
            raise unknown_member()
        if member == pid:
            raise Conflict("the owner leaves the league rather than removing themselves", code="cannot_remove_self")
        return _answer(s.leagues.remove_member(league_id, pid, member), None)


def _league_board(league_id: str, board_of) -> object:
    """The league's board: its members (one round trip in the league's slot), then their entries
    on the public board (one in the board's): the same figures as the public board, no more."""
    s = services()
    view = s.leagues.members_of(league_id, current_pid())
    board: Board = board_of()
    return as_documented(view.board(board, s.leaderboard.entries_of(board, view.members)))


@blp.route("/leagues/<string:league_id>/leaderboards/days/<string:period>")
class LeagueDayBoard(MethodView):
    @blp.response(200, LeagueBoardSchema)
    @blp.doc(security=SECURITY)
    def get(self, league_id, period):
        """The league's board of a day: its members' rank scores, rank in the league beside the public
        rank, then (``not_played``) the members with no counted score that day

        Members only (404 ``unknown_league``); 404 ``unknown_date``."""
        return _league_board(league_id, lambda: _day(period))


@blp.route("/leagues/<string:league_id>/leaderboards/<any(weeks, months):kind>/<string:period>")
class LeaguePeriodBoard(MethodView):
    @blp.response(200, LeagueBoardSchema)
    @blp.doc(security=SECURITY)
    def get(self, league_id, kind, period):
        """The league's board of a week (YYYY-Www) or a month (YYYY-MM): summed margins (``sum``) and
        days played; members only (404 ``unknown_league``); 404 ``unknown_period``"""
        return _league_board(league_id, lambda: (week_board if kind == "weeks" else month_board)(period))


@blp.route("/leagues/<string:league_id>/leaderboards/all-time")
class LeagueAllTimeBoard(MethodView):
    @blp.response(200, LeagueBoardSchema)
    @blp.doc(security=SECURITY)
    def get(self, league_id):
        """The league's all-time board: summed margins (``sum``) and days played; members only"""
        return _league_board(league_id, lambda: ALL_TIME)


__all__ = ["blp"]
