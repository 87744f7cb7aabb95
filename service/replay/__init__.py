"""The Manille engine: pure, deterministic, no I/O (rules ids ``muette-1``, ``parlee-1``, ``manillen-1``)."""

from .calls import Auction, Call, Contract
from .cards import DECK, Card, Rank, Suit, cards_of, format_cards, mask_of, parse_cards
from .deal import Deal, check_seed, deal, dealer_of, first_dealer, shuffled_deck
from .errors import (BotError, GameOverError, IllegalCallError, IllegalPlayError, InvalidCallError,
                     InvalidCardError, InvalidSeedError, ManilleError, Obligation)
from .observation import Observation
from .policy import Bidder, Bot, call_stream, decision_stream
from .record import FORMAT, build_record, commitment_of, dumps, player_cards
from .replay import (MAX_SUBMISSION, Rejection, SubmissionRejected, answer_action, answer_call, answer_card,
                     bot_move, play_game, refusal, shown, simulate, verify)
from .rules import (GAME_TARGET, RULES_ID, TEAM_NAMES, Play, Trick, broken_obligation, check_play, deal_score,
                    game_result, legal_cards, legal_mask, rank_score, team_of)
from .state import GameState
from .variants import MANILLEN, MUETTE, PARLEE, RULES, Rules, UnknownRulesError, rules_for
from .stream import HashStream

__all__ = [
    "DECK", "FORMAT", "GAME_TARGET", "MAX_SUBMISSION", "RULES_ID", "TEAM_NAMES",
    "MANILLEN", "MUETTE", "PARLEE", "RULES", "Rules", "UnknownRulesError", "rules_for",
    "Auction", "Bidder", "Call", "Contract", "IllegalCallError", "InvalidCallError",
    "answer_action", "answer_call", "call_stream",
    "Bot", "BotError", "Card", "Deal", "GameOverError", "GameState", "HashStream", "IllegalPlayError",
    "InvalidCardError", "InvalidSeedError", "ManilleError", "Obligation", "Observation", "Play", "Rank",
    "Rejection", "SubmissionRejected", "Suit", "Trick",
    "answer_card", "bot_move", "broken_obligation", "build_record", "cards_of", "check_play", "check_seed", "commitment_of", "deal",
    "deal_score", "dealer_of", "game_result", "decision_stream", "dumps", "first_dealer", "format_cards", "legal_cards",
    "legal_mask", "mask_of", "parse_cards", "play_game", "player_cards", "rank_score", "refusal", "shown", "shuffled_deck",
    "simulate", "team_of", "verify",
]
