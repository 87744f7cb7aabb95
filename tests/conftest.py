"""Settings for the whole suite.

freezegun, which drives the clock of the tests that need one, leaves pytest's own timing alone:
otherwise a fixture that freezes the clock is reported as lasting decades (``--durations``).

Every answer an app of this process gives is held against the API's document
(``support.contract_check``): what a session's tests saw and the document does not say is an
error at the teardown of its last test."""

from __future__ import annotations

import freezegun
import pytest

from support import contract_check

freezegun.configure(extend_ignore_list=["_pytest"])
contract_check.install()


@pytest.fixture(scope="session", autouse=True)
def answers_as_documented():
    yield
    problems = contract_check.problems()
    assert not problems, "answers the API's document does not list:\n" + "\n".join(problems)
