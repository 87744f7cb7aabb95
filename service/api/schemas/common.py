"""What every resource's schemas share: strict request bodies, and the one error envelope
(``ManilleApi.ERROR_SCHEMA``)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


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
