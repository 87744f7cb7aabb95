"""Leagues and their boards: /api/v1/leagues, /api/v1/players/me/leagues."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.leagues import INVITE_RE, MAX_MEMBERS, NAME_CLUSTERS, NAME_RAW_MAX

from .common import NICKNAME_FIELD, StrictSchema

NICKNAME = ("optional: a name the caller holds (a verified game of theirs was submitted under it; the nickname "
            "rules and codes, 409 nickname_taken for another player's, nickname_not_held for one not theirs yet), "
            "shown for them in every league of theirs; without it a league shows the name they hold, or none")
HANDLE = "the member's handle in this league: how DELETE /leagues/{id}/members/{member} names them"


# The limits JSON Schema can say come from the rules' constants, which ``parse_name`` and
# ``nicknames.parse`` enforce (with their own codes): the document says what the server checks.
NAME = {"minLength": 1, "maxLength": NAME_RAW_MAX, "description": (
    f"1 to {NAME_CLUSTERS} characters as a reader counts them (grapheme clusters), at most {NAME_RAW_MAX} code "
    "points as sent (maxLength) and once normalised as a nickname is; any script. What a schema cannot say is refused with its code (422): "
    "league_name_empty (nothing but spaces), league_name_too_long, league_name_control, league_name_invisible, "
    "league_name_unassigned, league_name_mark_first")}
MEMBER_NAME = {**NICKNAME_FIELD, "description": NICKNAME + ". " + NICKNAME_FIELD["description"]}


class LeagueCreateSchema(StrictSchema):
    name = fields.String(required=True, metadata=NAME)
    nickname = fields.String(load_default=None, metadata=MEMBER_NAME)


class LeagueJoinSchema(StrictSchema):
    invite = fields.String(required=True, validate=validate.Length(max=64), metadata={
        "pattern": f"^{INVITE_RE.pattern}$",
        "description": "the code of the invite link /leagues/join/{invite}; 404 unknown_league for a wrong or old one"})
    nickname = fields.String(load_default=None, metadata=MEMBER_NAME)


class LeagueRenameSchema(StrictSchema):
    name = fields.String(required=True, metadata=NAME)


class RosterEntrySchema(ma.Schema):
    member = fields.String(required=True, metadata={"description": HANDLE})
    nickname = fields.String(required=True, allow_none=True, metadata={
        "description": "a name the member holds, or null: none yet"})
    owner = fields.Boolean(required=True)
    me = fields.Boolean(required=True, metadata={"description": "the caller"})


class LeagueSchema(ma.Schema):
    league_id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "text, never markup: escape it to show it"})
    invite = fields.String(required=True, metadata={
        "description": "the code of the invite link; a new one (POST /leagues/{id}/invite) ends it"})
    invite_url = fields.String(required=True, metadata={"description": "the invite link's path on the site"})
    members = fields.Integer(required=True, metadata={"description": f"how many (at most {MAX_MEMBERS})"})
    owner = fields.Boolean(required=True, metadata={"description": "whether the caller owns the league"})
    created_at = fields.String(required=True)
    roster = fields.List(fields.Nested(RosterEntrySchema), required=True, metadata={
        "description": "the members in the order they joined, by handle and nickname"})
    player_token = fields.String(metadata={
        "description": "only when the request came without a token: the new player's token, given once"})


class LeagueSummarySchema(ma.Schema):
    league_id = fields.String(required=True)
    name = fields.String(required=True)
    members = fields.Integer(required=True)
    owner = fields.Boolean(required=True)


class LeagueListSchema(ma.Schema):
    leagues = fields.List(fields.Nested(LeagueSummarySchema), required=True, metadata={
        "description": "the caller's leagues in the order joined"})


class InvitePreviewSchema(ma.Schema):
    league_id = fields.String(required=True)
    name = fields.String(required=True)
    members = fields.Integer(required=True)
    member = fields.Boolean(required=True, metadata={"description": "whether the caller is a member already"})
    full = fields.Boolean(required=True, metadata={"description": "whether it has its members (a join is 409 league_full)"})


class LeagueEntrySchema(ma.Schema):
    rank = fields.Integer(required=True, metadata={"description": "within the league, shared by equal values"})
    member = fields.String(required=True, metadata={"description": HANDLE})
    nickname = fields.String(required=True, allow_none=True, metadata={
        "description": "a name the member holds, or null: none yet"})
    score = fields.Integer(metadata={"description": "a day's board: the rank score"})
    sum = fields.Integer(metadata={"description": "week, month, all time: summed margins (score − 1000)"})
    days = fields.Integer(metadata={"description": "week, month, all time: days played"})
    public_rank = fields.Integer(required=True, metadata={"description": "the rank on the public board"})
    me = fields.Boolean(required=True, metadata={"description": "the caller's own entry"})


class LeagueBoardSchema(ma.Schema):
    league_id = fields.String(required=True)
    name = fields.String(required=True)
    board = fields.String(required=True, metadata={"description": "day, week, month or all"})
    period = fields.String(required=True)
    members = fields.Integer(required=True)
    public_total = fields.Integer(required=True, metadata={"description": "entries on the public board"})
    entries = fields.List(fields.Nested(LeagueEntrySchema), required=True, metadata={
        "description": "the members on the board, in the public board's order"})
    not_played = fields.List(fields.String(allow_none=True), required=True, metadata={
        "description": "the members with no counted score on this board (a day's: not played yet), by nickname "
                       "(null for one with none yet, after the others)"})
