"""Daily seeds, commitments and day boundaries, DST days included."""

from datetime import date, datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from freezegun import freeze_time

from service.replay import first_dealer
from service.seeds import (DayClock, InvalidDateError, MissingSecretError, SealedSeedError, SecretSchedule,
                           SecretScheduleError, commitment, daily_seed, free_play_seed, older_secrets, parse_date,
                           ShortSecretError, schedule_from_env, secret_from_env)

SECRET = b"test-secret"


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


def test_daily_vector():
    seed = daily_seed(SECRET, date(2026, 12, 2))
    assert seed.hex() == "09d0c18d40299c512c53d937b31930b11ad63a6749d57da7d28cfc7c2175db76"
    assert commitment(seed) == "6b7544020145c27da13b445ac5036d272b317e1e007df02bbe5251deae6444af"
    assert first_dealer(seed) == 2


def test_days_differ_and_secrets_differ():
    assert daily_seed(SECRET, date(2026, 12, 2)) != daily_seed(SECRET, date(2026, 12, 3))
    assert daily_seed(SECRET, date(2026, 12, 2)) != daily_seed(b"other", date(2026, 12, 2))


def test_free_play_seed_is_random_32_bytes():
    a, b = free_play_seed(), free_play_seed()
    assert len(a) == 32 and a != b


def test_secret_from_env(tmp_path):
    assert secret_from_env({"MANILLE_SECRET": "test-secret"}) == SECRET
    path = tmp_path / "secret"
    path.write_text("test-secret\n")
    assert secret_from_env({"MANILLE_SECRET_FILE": str(path)}) == SECRET
    assert secret_from_env({"MANILLE_SECRET": "other", "MANILLE_SECRET_FILE": str(path)}) == b"other"
    for env in ({}, {"MANILLE_SECRET": ""}, {"MANILLE_SECRET_FILE": str(tmp_path / "missing")},
                {"MANILLE_SECRET_FILE": str(tmp_path)}):
        with pytest.raises(MissingSecretError):
            secret_from_env(env)
    with pytest.raises(MissingSecretError):
        daily_seed(b"", date(2026, 12, 2))


def test_a_schedule_gives_each_day_the_secret_of_its_era(tmp_path):
    """Without a rotation the one secret serves every day (the seeds of before: the vector above)."""
    assert SecretSchedule.single(SECRET).seed(date(2026, 12, 2)) == daily_seed(SECRET, date(2026, 12, 2))
    oldest, middle, newest = "oldest secret, with spaces, 32 bytes", "the-middle-secret-0123456789abcdef", "n" * 32
    path = tmp_path / "previous"
    path.write_text(f"{oldest}\n\n2026-01-01  {middle} \n")
    chain = schedule_from_env({"MANILLE_SECRET": newest, "MANILLE_SECRET_SINCE": "2027-01-01",
                               "MANILLE_SECRET_PREVIOUS_FILE": str(path)})
    for day, secret in ((date(2000, 1, 1), oldest), (date(2025, 12, 31), oldest),
                        (date(2026, 1, 1), middle), (date(2026, 12, 31), middle), (date(2027, 1, 1), newest),
                        (date(9998, 12, 31), newest)):
        assert chain.seed(day) == daily_seed(secret.encode(), day), day
    assert chain.since == date(2027, 1, 1) and chain.firsts() == [date(2026, 1, 1), date(2027, 1, 1)]
    assert "secret" not in repr(chain) and newest not in repr(chain)  # a repr may reach a log
    assert older_secrets(path.read_text()) == [oldest, middle]
    with pytest.raises(MissingSecretError, match="MANILLE_SECRET_PREVIOUS_FILE"):
        schedule_from_env({"MANILLE_SECRET": newest, "MANILLE_SECRET_SINCE": "2027-01-01",
                           "MANILLE_SECRET_PREVIOUS_FILE": str(tmp_path / "missing")})
    with pytest.raises(SecretScheduleError, match="MANILLE_SECRET_SINCE: "):
        SecretSchedule.build(newest.encode(), "1999-12-31", middle)


def test_a_secret_shorter_than_32_bytes_is_refused_naming_where_it_is():
    """Each published seed lets anyone test guesses of the secret offline: a process refuses a
    short one at start, saying which variable (or line of it) holds it, never the secret itself."""
    good = "g" * 32
    with pytest.raises(ShortSecretError, match=r"^MANILLE_SECRET is 31 bytes long: at least 32") as e:
        schedule_from_env({"MANILLE_SECRET": "s" * 31})
    assert "s" * 31 not in str(e.value)
    assert schedule_from_env({"MANILLE_SECRET": "é" * 16}).seed(date(2026, 12, 2))  # bytes, not characters
    with pytest.raises(ShortSecretError, match="MANILLE_SECRET_PREVIOUS line 2 is 5 bytes long"):
        schedule_from_env({"MANILLE_SECRET": good, "MANILLE_SECRET_SINCE": "2027-01-01",
                           "MANILLE_SECRET_PREVIOUS": f"{'o' * 32}\n2026-01-01 short"})
    with pytest.raises(ShortSecretError, match="MANILLE_SECRET_PREVIOUS line 1 is 3 bytes long"):
        schedule_from_env({"MANILLE_SECRET": good, "MANILLE_SECRET_SINCE": "2027-01-01",
                           "MANILLE_SECRET_PREVIOUS": "old"})


@pytest.mark.parametrize("bad", ["2026-13-01", "2026-02-30", "20261202", "2026-12-2", "", "today", None, "2026-12-02x"])
def test_parse_date_rejects(bad):
    with pytest.raises(InvalidDateError):
        parse_date(bad)


def test_brussels_boundaries_winter_and_summer():
    clock = DayClock("Europe/Brussels")
    assert clock.opens_at(date(2026, 12, 2)) == utc(2026, 12, 1, 23)
    assert clock.closes_at(date(2026, 12, 2)) == utc(2026, 12, 2, 23)
    assert clock.opens_at(date(2026, 7, 1)) == utc(2026, 6, 30, 22)


def test_dst_days_are_23_and_25_hours():
    clock = DayClock("Europe/Brussels")
    spring, autumn = date(2026, 3, 29), date(2026, 10, 25)
    assert (clock.closes_at(spring) - clock.opens_at(spring)).total_seconds() == 23 * 3600
    assert (clock.closes_at(autumn) - clock.opens_at(autumn)).total_seconds() == 25 * 3600


@freeze_time("2026-12-02 22:59:59")
def test_today_just_before_brussels_midnight():
    clock = DayClock("Europe/Brussels", grace_seconds=0)
    assert clock.today() == date(2026, 12, 2)
    assert not clock.may_reveal(date(2026, 12, 2))
    assert clock.may_reveal(date(2026, 12, 1))
    with pytest.raises(SealedSeedError):
        clock.revealed_seed(SECRET, date(2026, 12, 2))


@freeze_time("2026-12-02 23:00:00")
def test_today_at_brussels_midnight():
    clock = DayClock("Europe/Brussels", grace_seconds=0)
    assert clock.today() == date(2026, 12, 3)
    assert clock.may_reveal(date(2026, 12, 2))
    assert clock.revealed_seed(SECRET, date(2026, 12, 2)) == daily_seed(SECRET, date(2026, 12, 2))
    assert not clock.may_reveal(date(2026, 12, 3))
    assert not clock.may_reveal(date(2026, 12, 30))  # future days never


def test_dst_spring_forward_with_freezegun():
    clock = DayClock("Europe/Brussels", grace_seconds=0)
    day = date(2026, 3, 29)  # clocks go 02:00 -> 03:00 local
    with freeze_time("2026-03-28 23:00:00"):  # local midnight of the 29th (UTC+1)
        assert clock.today() == day and clock.phase(day) == "open"
    with freeze_time("2026-03-29 21:59:59"):  # 23:59:59 local (UTC+2)
        assert clock.today() == day and not clock.may_reveal(day)
    with freeze_time("2026-03-29 22:00:00"):
        assert clock.today() == date(2026, 3, 30) and clock.may_reveal(day)


def test_dst_autumn_back_with_freezegun():
    clock = DayClock("Europe/Brussels", grace_seconds=0)
    day = date(2026, 10, 25)  # clocks go 03:00 -> 02:00 local
    with freeze_time("2026-10-24 22:00:00"):
        assert clock.today() == day
    with freeze_time("2026-10-25 22:59:59"):
        assert clock.today() == day and not clock.may_reveal(day)
    with freeze_time("2026-10-25 23:00:00"):
        assert clock.today() == date(2026, 10, 26) and clock.may_reveal(day)


def test_time_zone_from_env(monkeypatch):
    monkeypatch.setenv("MANILLE_TZ", "UTC")
    assert DayClock().opens_at(date(2026, 12, 2)) == utc(2026, 12, 2)
    monkeypatch.setenv("MANILLE_TZ", "Nowhere/Atlantis")
    with pytest.raises(ValueError):
        DayClock()


def test_naive_now_refused():
    with pytest.raises(ValueError):
        DayClock("UTC").today(datetime(2026, 12, 2))


def test_grace_delays_the_reveal_not_the_close(monkeypatch):
    monkeypatch.delenv("MANILLE_GRACE_SECONDS", raising=False)
    clock = DayClock("Europe/Brussels")  # default grace: 30 minutes
    day = date(2026, 12, 2)
    assert clock.reveals_at(day) == utc(2026, 12, 2, 23, 30)
    phases = {t: clock.phase(day, utc(*t)) for t in [(2026, 12, 1, 22, 59, 59), (2026, 12, 1, 23),
                                                     (2026, 12, 2, 23), (2026, 12, 2, 23, 29, 59),
                                                     (2026, 12, 2, 23, 30)]}
    assert list(phases.values()) == ["upcoming", "open", "closing", "closing", "closed"]
    assert not clock.may_reveal(day, utc(2026, 12, 2, 23, 29))  # closed at 23:00, revealed at 23:30
    with pytest.raises(SealedSeedError) as info:
        clock.revealed_seed(SECRET, day, utc(2026, 12, 2, 23, 29))
    assert "23:30" in str(info.value)
    assert clock.revealed_seed(SECRET, day, utc(2026, 12, 2, 23, 30)) == daily_seed(SECRET, day)


def test_grace_from_env(monkeypatch):
    monkeypatch.setenv("MANILLE_GRACE_SECONDS", "60")
    assert DayClock("UTC").reveals_at(date(2026, 12, 2)) == utc(2026, 12, 3, 0, 1)
    for bad in ("soon", "-5", "100000"):
        monkeypatch.setenv("MANILLE_GRACE_SECONDS", bad)
        with pytest.raises(ValueError):
            DayClock("UTC")


@given(st.text(max_size=40) | st.dates().map(lambda d: d.isoformat()) | st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", fullmatch=True))
def test_parse_date_gives_a_service_day_or_invalid_date_error(text):
    from service.seeds import FIRST_DAY, LAST_DAY, InvalidDateError, parse_date
    try:
        day = parse_date(text)
    except InvalidDateError:
        return
    assert FIRST_DAY <= day <= LAST_DAY and day.isoformat() == text
