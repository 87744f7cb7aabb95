"""Card-by-card analysis of a finished game: each legal card's value with open hands and from the
seat, the marks, the summary, and the hidden-information statistic ops read (postmortem.hindsight)."""

from .game import FORMAT, SEATS, AnalysisError, analyse, decision_key, decision_keys, game_plays, game_record, replay_record
from .settings import ANALYSIS_ID, BANDS, MARKS, AnalysisSettings, band, clear, mark

__all__ = ["ANALYSIS_ID", "BANDS", "FORMAT", "MARKS", "SEATS", "AnalysisError", "AnalysisSettings",
           "analyse", "band", "clear", "decision_key", "decision_keys", "game_plays", "game_record", "mark", "replay_record"]
