"""The hidden-information check of a verified game, on the ``analysis-check`` queue: its analysis
asked for when the game is strong enough to be worth it (or ops ask), then its figures noted, and
the flags raised, from the finished analysis (``service.flags.hindsight``)."""

from __future__ import annotations

import logging
from datetime import date

from service.config import Settings
from service.errors import NotFound


def note_check(settings: Settings, client, sub_id: str, analysis_id: str, doc: dict) -> bool:
    """The hidden-information check of ``sub_id`` from its game's finished analysis ``doc``: its
    figures kept with the submission, and the ``hindsight`` flag when they pass the thresholds; then
    the player's recent checked games together, and ``hindsight_player`` when they pass."""
    from postmortem.hindsight import CHECK_ID, score
    from service import flags as suspicion
    from service.runs.table import parse_plays
    from service.submissions import Submissions

    fs = settings.flags
    subs = Submissions(client, settings)
    try:
        sub = subs.get(sub_id)
    except NotFound:  # the submission is gone: nothing to note
        return False
    if " ".join(str(c) for c in parse_plays(sub["cards"])) != " ".join(
            p["played"] for p in doc["decisions"] if p["seat"] == 0):
        logging.getLogger(__name__).warning("analysis %s is not submission %s's game", analysis_id, sub_id)
        return False
    evidence = score(doc["decisions"], 0, fs.hindsight_from_trick)
    evidence.update(analysis_id=analysis_id, z_threshold=fs.hindsight_z, gain_threshold=fs.hindsight_gain)
    subs.note_hindsight(sub_id, analysis_id=analysis_id, evidence=evidence,
                        flag=suspicion.hindsight(evidence, fs), check=CHECK_ID)
    # One game says little (service.flags): the player's recent checked games are tested together.
    subs.note_checked(sub["pid"], date.fromisoformat(sub["date"]), sub_id)
    together = suspicion.hindsight_together(subs.checked_games(sub["pid"], fs.hindsight_player_games), fs)
    if together is not None:
        subs.note_together(sub_id, together, suspicion.hindsight_player(together, fs))
    if sub["status"] == "review":  # a game at the top waited for this check to rank, or be held
        from service.review.queue import Reviews
        Reviews(client, settings).judge(sub_id)
    return True


def request_check(settings: Settings, client, sub_id: str, sub: dict, *, force: bool = False) -> str | None:
    """Queue the analysis a verified game's hidden-information check needs, if it is due (a score
    in the day's top 1,000 or above its 99th percentile) or ``force`` (ops asked); the analysis id."""
    from service import flags as suspicion
    from service.analysis import Analyses  # the package imports this module
    from service.challenges import Challenges
    from service.leaderboard import Leaderboard
    from service.runs.table import parse_plays
    from service.submissions import Submissions

    day = date.fromisoformat(sub["date"])
    if not force:
        if sub.get("hindsight_analysis"):
            return None
        hist = {b["score"]: b["count"] for b in Leaderboard(client).histogram(day)}
        if not suspicion.hindsight_due(int(sub["score"]), hist):
            return None
        Submissions(client, settings).note_strong_game(day, sub["pid"], sub_id)
    challenge = Challenges(client, settings).get(day)
    cards = [str(c) for c in parse_plays(sub["cards"])]
    analyses = Analyses(client, settings)
    aid, _ = analyses.request(seed=settings.seed(day), day=day, rules=challenge.rules, bots=challenge.bots,
                              cards=cards, purpose="flag", submission_id=sub_id)
    Submissions(client, settings).note_hindsight(sub_id, analysis_id=aid)
    if analyses.state(aid)["status"] == "finished":  # the same game was analysed before: check it now
        doc = analyses.get(aid)["analysis"]
        if doc is not None:  # else its positions were lost: failed, queued again when asked
            note_check(settings, client, sub_id, aid, doc)
    return aid
