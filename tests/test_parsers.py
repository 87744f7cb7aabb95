"""Every parser of outside text, fed anything: it returns a value whose notation round-trips, or
raises its own typed error (a ValueError under ManilleError / InvalidDateError), nothing else."""

from __future__ import annotations

from datetime import date

from hypothesis import example, given
from hypothesis import strategies as st

from service.replay import Card, InvalidCardError, InvalidSeedError, parse_cards
from service.replay.deal import check_seed
from service.runs import run_day
from service.runs.table import encode_action, parse_plays
from service.submissions import submission_day

CARD_TEXTS = [f"{r}{s}" for r in ("7", "8", "9", "J", "Q", "K", "A", "T", "10") for s in "CDHScdhs"]
#: Text near the notation: card texts, their pieces, look-alikes and any character at all.
near = st.sampled_from(CARD_TEXTS) | st.text(alphabet="0123456789TJQKAtjqkaCDHSchdsſıİ ,\x00", max_size=4) | st.text(max_size=4)


@given(near)
@example("Tſ").via("U+017F upper-cases to S")
@example("ıH").via("U+0131 upper-cases to I")
def test_card_parse_round_trips_or_raises_invalid_card(text):
    try:
        card = Card.parse(text)
    except InvalidCardError as e:
        assert isinstance(e, ValueError)
        return
    assert text.isascii() and str(card) == text.upper().replace("10", "T", 1)
    assert Card.parse(str(card)) == card and eval(repr(card)) == card  # noqa: S307 - repr rebuilds it


@given(st.lists(near, max_size=6).map(" ".join) | st.text(max_size=30))
def test_card_lists_parse_whole_or_raise(text):
    try:
        cards = parse_cards(text)
    except InvalidCardError:
        return
    assert parse_cards(" ".join(map(str, cards))) == cards


@given(st.lists(st.sampled_from(CARD_TEXTS[:64]), max_size=40).map("".join) | st.text(max_size=40))
def test_stored_plays_parse_whole_or_raise(text):
    try:
        cards = parse_plays(text)
    except InvalidCardError:
        return
    assert "".join(map(encode_action, cards)) == text.upper()


@given(st.binary(max_size=40) | st.text(max_size=70) | st.text(alphabet="0123456789abcdefABCDEF ", max_size=70))
def test_seeds_are_32_bytes_or_invalid_seed(seed):
    try:
        out = check_seed(seed)
    except InvalidSeedError:
        return
    assert len(out) == 32 and check_seed(out.hex()) == out


ID = st.from_regex(r"(\d{8})-[A-Za-z0-9_-]{16}|(\d{8})-[0-9a-f]{20}", fullmatch=True)


@given(ID | st.text(max_size=40) | st.integers() | st.none())
@example("000\u06610101-" + "a" * 16).via("an Arabic-Indic digit matched \\d")
def test_ids_name_a_day_or_nothing(text):
    """A run or submission id gives its day or None: never an exception, never a key from junk."""
    for day in (run_day(text), submission_day(text)):
        assert day is None or (isinstance(day, date) and text[:9] == day.isoformat().replace("-", "") + "-")


@given(st.from_regex(r"2[0-9]{3}-W[0-9]{2}|2[0-9]{3}-[0-9]{2}", fullmatch=True) | st.text(max_size=10))
@example("2\u0660\u06626-W01").via("Arabic-Indic digits")
def test_board_periods_are_ascii_or_unknown(text):
    from service.errors import NotFound
    from service.leaderboard import month_board, week_board
    try:
        board = (week_board if "W" in text else month_board)(text)
    except NotFound:
        return
    assert text.isascii() and board.id == text
