"""Rate limits on the API: which requests count towards which limit, the client's address, and
the 429.  The counting is ``service.limits`` (Redis, shared by every web process and machine).

A run of an open day is an exact simulator of that day's game (the bots are deterministic), so
opening ranked runs in bulk is how the day's game tree gets searched.  The limits make that
expensive without costing an honest newcomer anything: a first run needs no account, no waiting
and no puzzle, and is ranked.  Each limit is configuration (``Settings.limits``, strings such as
``"12 per hour;30 per day"``, defaults in ``service.config.DEFAULT_LIMITS``); all of a limit's
windows must have room, else 429 ``too_many_requests`` in the JSON envelope with ``Retry-After``
(seconds until the first window that is full has room again), and nothing is counted.  Only
requests that succeed count: a refused one (limited, or invalid for any other reason) counts
nothing.

``ranked_runs``       ranked runs of an open day opened from one client address.  Each player has
                      one, so this is how many players one address may bring in a day.
``runs_per_token``    runs of any kind opened by one player token (free play included).
``runs_per_address``  runs of any kind opened from one client address.
``plays_per_token``   cards played by one token (default 240 a minute, 3600 an hour).  At
                      ``?speed=instant`` the bots answer at once and a quick clicker may play a
                      game (up to 56 cards) in half a minute; 4 cards a second kept up for a minute
                      (the browser tests' robot plays two games in a row in under a minute, 112
                      cards), or one a second for a whole hour, is beyond anyone; 3600 an hour is
                      also more than the 60 games an hour ``runs_per_token`` lets open.  A script,
                      by contrast, plays hundreds a second: each play is a few bot moves of CPU
                      and is stored for good.
``plays_per_address`` cards played from one address (default 600 a minute, 12000 an hour): a
                      classroom of 30 each playing a card every 3 seconds, and just over the
                      200 games an hour ``runs_per_address`` lets open.  At 600 a minute one
                      address takes at most about 5 % of one core.
``submissions_per_token``    submissions by one token (default 5 an hour, 10 a day).  A player
                      submits the day's one ranked run, two around midnight (the grace period).
``submissions_per_address``  submissions from one address (default 30 an hour, 100 a day): looser
                      than ``ranked_runs`` (each submission is a ranked run's), so it binds only
                      when that one is raised or players change address between play and submit;
                      raise both together for a school.  Each submission is a verification job.
``analyses_per_token``, ``analyses_per_address``  analyses asked for (default 20 an hour and 60 a
                      day per token, 60 an hour and 400 a day per address).  A game's analysis is
                      the dearest thing the service computes (seconds of a worker's core); one
                      already analysed, queued or running is answered as it is and counts nothing,
                      so a player reviewing their games, or a class reviewing the day's best game,
                      never meets them.
``leagues_per_token``, ``leagues_per_address``  leagues created and joined (default 10 an hour and
                      30 a day per token, 60 an hour and 300 a day per address).  A player is in at
                      most 20 leagues; a league is kept until deleted, and each one made or joined
                      writes for good, so a script making thousands is what they stop, while a
                      class of thirty joining its teacher's league from one address in ten minutes
                      never meets them.  A join answered as a member already counts nothing.

Opening a duel's run counts towards ``runs_per_token`` and ``runs_per_address`` as any run.

A request answered from what is stored counts nothing and is never refused: the same turn and card
played again (a retry after a lost answer; the page repeats it until it gets one), or a run
submitted again (its existing submission id).  Such a repeat stores nothing and costs no more than
a GET of the run, and a page that retries must get its answer even at the limit.

A play's limits cost it no round trip of their own: it is counted in them as the run is read,
each limit's windows checked and counted in one script call (``take``: a limit full counts
nothing), and the count is given back if the play is then refused for any reason, is a repeat,
or finds the run changed (Flask-Limiter took 8 round trips a play, 1.2 ms; a check with the run
and a count with the store, 2 script calls more than now).  Opening a run and submitting one
check their limits in one round trip and count them in one more.  scripts/bench_limits.py measures a play, a
repeat, a GET of the run and of a board with the limits on and off.

GETs (boards, a run, a submission's status) have no limit here: they store nothing, a page polls a
submission's status every 0.7 s until it is verified, and a classroom polls from one address.  A
flood of requests of any kind is the proxy's to bound per address, in memory and before the app
(``deploy/nginx.conf``: 50 requests a second, bursts of 200, 20 at a time).
"""

from __future__ import annotations

from flask import request

from service.limits import Gate, parse

from .common import services


def client_address() -> str:
    """The client's address: the socket's, or, behind ``MANILLE_TRUSTED_PROXIES`` proxies, the one
    they forwarded (werkzeug's ProxyFix rewrites ``remote_addr``)."""
    return request.remote_addr or "unknown"


def gate(*limits: tuple[str, str]) -> Gate:
    """The configured windows of each (limit name, subject); a limit turned off has none."""
    configured = services().settings.limits
    return Gate((name, subject, parse(configured.get(name) or "")) for name, subject in limits)


def check(*limits: tuple[str, str]):
    """Test each (limit name, subject) for room (one round trip); TooManyRequests if any window is
    full.  Returns the function that counts them, to call once the request has succeeded: a
    refused request (limited, or invalid for any other reason) counts nothing."""
    g = gate(*limits)
    store = services().limits
    store.check(g)
    return lambda: store.count(g)


class Admission:
    """The limits of a request that learns only partway whether it needs them (a repeat answered
    from what is stored does not): ``check`` when it does (TooManyRequests if full), ``count``
    once it succeeded, which counts only if ``check`` was called."""

    def __init__(self, *limits: tuple[str, str]) -> None:
        self.limits = limits
        self._count = None

    def check(self) -> None:
        self._count = check(*self.limits)

    def count(self) -> None:
        if self._count is not None:
            self._count()
