"""What every resource's schemas share: strict request bodies, the one error envelope
(``ManilleApi.ERROR_SCHEMA``), and the request fields read as the OpenAPI document says them (a
day, an integer, a body that is one of several, a nickname)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

import marshmallow as ma
from marshmallow import fields

from service.players import nickname as nicknames


class StrictSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE


class ErrorSchema(ma.Schema):
    """The one error envelope; the details present depend on the code."""

    class Meta:
        unknown = ma.INCLUDE  # open to details, so adding one never breaks a client's validation

    error = fields.String(required=True, metadata={"description": "stable error code"})
    message = fields.String(required=True, metadata={"description": "for people; may change"})
    fields_ = fields.Dict(data_key="fields", keys=fields.String(), metadata={
        "description": "validation_error: the offending fields and what is wrong with each"})
    card = fields.String(metadata={"description": "illegal_card, call_expected: the card refused"})
    call = fields.String(metadata={"description": "illegal_call, card_expected: the call refused"})
    obligation = fields.String(metadata={"description": "illegal_card: the obligation it breaks (docs/spec.md §10.3)"})
    legal = fields.List(fields.String(), metadata={
        "description": "illegal_card, card_expected: the cards that were legal; illegal_call, call_expected: "
                       "the calls that were"})
    allowed = fields.List(fields.Raw(metadata={"anyOf": [{"type": "string"}, {"type": "integer"}]}), metadata={
        "description": "unknown_rules: the rules ids; unknown_target: the targets these rules allow; "
                       "unknown_bots: the bots free play offers under these rules"})
    expected_turn = fields.Integer(metadata={"description": "wrong_turn: the turn to play"})
    run_id = fields.String(metadata={"description": "already_played: the player's ranked run of the day"})
    reveal_at = fields.String(metadata={"description": "day_open, day_closed, seed_sealed, record_sealed: when the "
                                                       "day's seed is published", "format": "date-time"})
    limit = fields.Integer(metadata={"description": "too_many_requests: the full limit's amount; league_full, "
                                                    "too_many_leagues, duel_full, *_too_long: the most allowed"})
    retry_after = fields.Integer(metadata={"description": "too_many_requests and the 503s: seconds to wait (also "
                                                          "the Retry-After header)"})
    character = fields.String(metadata={"description": "the nickname and league name codes: the character refused, "
                                                       "as U+XXXX"})
    submission_status = fields.String(metadata={"description": "play_first, not_verified: the submission's status"})
    turn = fields.Integer(metadata={"description": "play_unconfirmed: the turn the play was for"})
    waiting = fields.Integer(metadata={"description": "bots_busy: the searches waiting in the bots' pool"})
    offer = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "bots_busy: a run to open instead (POST /runs's body: the club's table)"})


class JsonInteger(fields.Integer):
    """A body's integer as JSON Schema's ``integer`` is: a number with no fraction, ``5`` or ``5.0``;
    never a string (``"5"``) or a boolean.  Anything else: ValidationError."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _validated(self, value):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._validated(value)


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class Day(fields.Date):
    """A calendar day written ``YYYY-MM-DD`` and nothing else (the document's ``format: date``),
    of any year a date can hold: whether the service has such a day is the view's answer, not a
    validation error.  A non-string, another form or no such date: ValidationError."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and _DAY.fullmatch(value):
            try:
                return date.fromisoformat(value)
            except ValueError:  # 2026-02-30, year 0000
                pass
        raise self.make_error("invalid")


class OneOfSchema(ma.Schema):
    """A body that is exactly one of several schemas, as the document's ``oneOf`` says (the
    blueprint's ``arguments`` documents it so): ``choose`` picks the one the body means, which
    loads it.  Not an object, or a choice refused: ValidationError."""

    #: the schemas, in the document's order
    ONE_OF: tuple[ma.Schema, ...] = ()
    #: the request body's description in the document
    DESCRIPTION = ""

    def choose(self, data: Mapping) -> ma.Schema:
        raise NotImplementedError

    def load(self, data, *, many=None, partial=None, unknown=None):
        if not isinstance(data, Mapping):
            raise ma.ValidationError({"_schema": ["Invalid input type."]})
        return self.choose(data).load(data)


#: A nickname as the document gives it: the limits JSON Schema can say, from the rules' own
#: constants, and in words the rules it cannot (``service.players.nickname``).
NICKNAME_FIELD = {"minLength": 1, "maxLength": nicknames.RAW_MAX, "description": (
    f"1 to {nicknames.MAX_CLUSTERS} characters as a reader counts them (grapheme clusters: é typed as e and "
    f"an accent is one), at most {nicknames.RAW_MAX} code points as sent (maxLength) and once normalised (NFKC, "
    "which makes some characters two; ends trimmed, inner spaces made one); one script (Latin may join Japanese "
    "or Korean), digits of one kind, nothing invisible, no look-alike of another player's. What a schema "
    "cannot say is refused with its code (422): " + ", ".join(nicknames.CODES)
    + " (nickname_empty: nothing but spaces); 409 nickname_taken (it is, or looks like, another player's)")}
