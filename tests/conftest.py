"""Settings for the whole suite.

freezegun, which drives the clock of the tests that need one, leaves pytest's own timing alone:
otherwise a fixture that freezes the clock is reported as lasting decades (``--durations``)."""

from __future__ import annotations

import freezegun

freezegun.configure(extend_ignore_list=["_pytest"])
