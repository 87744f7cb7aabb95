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

"Address" is the client's network (``service.limits.client_network``): an IPv4 address (a 6to4
or Teredo address counts as the IPv4 it carries), or an IPv6 /64, which one subscriber holds whole
and may draw any of 2^64 addresses from; the proxy counts its own bounds the same way
(``deploy/nginx.conf``).  An ISP gives a customer a /56 or a /48, so a per-address limit counts
an IPv6 client's /64 in its /56 at the limit's amounts (a /56 is one household, as a /64 is) and
in its /48 at twice them (``WIDER_PREFIXES``): one /48 is two clients' worth, not 65,536.

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

``search_ms_per_token``, ``search_ms_per_address``  milliseconds of CPU the bots' searches of a
                      token's or an address's plays took (default 10 s a minute and 60 s an hour
                      per token, 20 s a minute and 300 s an hour per address).  A play is a few
                      Redis round trips, unless its bots search a position no cache holds (free
                      play at the day's strength, an archive day, a cold day: ``service.botpool``),
                      which takes tens to hundreds of ms of a core: a free game at expert-5 about
                      1.2 s.  A play that would start a search is refused (429) once either is
                      spent, and a stored play's searches are counted in both as they cost, so
                      600 plays a minute cannot buy 600 searches.  An honest player's 60 free
                      games an hour (``runs_per_token``) fit; a script driving the strongest table
                      from one address gets a third of a core for a minute, then 8 % of one.

Opening a duel's run counts towards ``runs_per_token`` and ``runs_per_address`` as any run.

A request answered from what is stored counts nothing and is never refused: the same turn and card
played again (a retry after a lost answer; the page repeats it until it gets one), or a run
submitted again (its existing submission id).  Such a repeat stores nothing and costs no more than
a GET of the run, and a page that retries must get its answer even at the limit.

Every limited request is taken in its limits at once: each limit's windows checked and the
request counted in one script call (``take``: a limit full counts nothing), so requests arriving
together (nginx lets 20 in at a time from one address) meet the limit one by one, as if in turn;
the count is given back if the request then fails.  A play's take costs it no round trip of its
own: it rides with the read of the run, and is given back if the play is then refused for any
reason, is a repeat, or finds the run changed (Flask-Limiter took 8 round trips a play, 1.2 ms).
Opening a run, a submission and an analysis take theirs in one round trip (``Admission``).
scripts/bench_limits.py measures a play, a repeat, a GET of the run and of a board with the
limits on and off.

Every answer of a limited route that got as far as its limits carries ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset`` (``service.api.caching``): the window with the
fewest requests left once this one is counted (or not), so that a client slows down before it is
refused.  A request answered from what is stored, or refused before it was taken, looks at its
windows without counting (one more round trip, on those rare answers only).

GETs (boards, a run, a submission's status) have no limit here: they store nothing, a page polls a
submission's status every 0.7 s until it is verified, and a classroom polls from one address.  A
flood of requests of any kind is the proxy's to bound per address, in memory and before the app
(``deploy/nginx.conf``: 50 requests a second, bursts of 200, 20 at a time).
"""

from __future__ import annotations

import redis
from flask import g, request

from service.errors import ServiceError, Unavailable
from service.limits import Gate, client_network, counted_networks, now_ms, parse, scaled

from .common import services


#: The limits whose subject is ``client_address()``: each also counts the wider networks around it.
ADDRESS_LIMITS = frozenset({"ranked_runs", "runs_per_address", "plays_per_address", "submissions_per_address",
                            "analyses_per_address", "leagues_per_address", "reports_per_address",
                            "links_per_address", "joins_per_address", "search_ms_per_address"})


def client_address() -> str:
    """What the per-address limits count: the network (an IPv4 address, an IPv6 /64) of the
    client's address, the socket's or, behind ``MANILLE_TRUSTED_PROXIES`` proxies, the one they
    forwarded (werkzeug's ProxyFix rewrites ``remote_addr``)."""
    return client_network(request.remote_addr or "unknown")


def _counted(configured: dict, name: str, subject: str):
    """(name, subject, windows) of a limit; a per-address one's for each network it counts the
    client in (``service.limits.counted_networks``: an IPv6 /64's /56 and /48, amounts scaled)."""
    windows = parse(configured.get(name) or "")
    if name not in ADDRESS_LIMITS:
        yield name, subject, windows
        return
    for network, factor in counted_networks(subject):
        yield name, network, scaled(windows, factor)


def gate(*limits: tuple[str, str]) -> Gate:
    """The configured windows of each (limit name, subject); a limit turned off has none.  The
    request's answer reports where it leaves them (its RateLimit headers)."""
    made = g.rate_gate = configured(*limits)
    return made


def configured(*limits: tuple[str, str]) -> Gate:
    """The configured windows of each (limit name, subject), as ``gate`` without reporting them."""
    windows = services().settings.limits
    return Gate(counted for name, subject in limits for counted in _counted(windows, name, subject))


def search_gate(pid: str) -> Gate:
    """A play's search limits: the milliseconds of CPU its bots' searches may still take."""
    return configured(("search_ms_per_token", pid), ("search_ms_per_address", client_address()))


class Admission:
    """The limits of a request, each (limit name, subject), taken when the request learns it needs
    them (a repeat answered from what is stored does not): ``take`` checks and counts them in one
    round trip (TooManyRequests, nothing counted, if one is full).  Used as a context manager: the
    count is given back when the block ends without ``keep`` (the request failed, or stored
    nothing), but kept when it ends in an Unavailable whose code says ``…_unconfirmed`` (Redis
    took the write and did not answer: it may have been stored, and its retry is answered as a
    repeat that counts nothing)."""

    def __init__(self, *limits: tuple[str, str]) -> None:
        self.gate = gate(*limits)
        self._taken: tuple[Gate, int] | None = None
        self._kept = False

    def take(self) -> None:
        if self.gate and self._taken is None:
            stamp = now_ms()
            self._taken = (services().limits.take(self.gate, stamp), stamp)

    def keep(self) -> None:
        self._kept = True

    def __enter__(self) -> "Admission":
        return self

    def __exit__(self, exc_type, exc, _tb) -> None:
        if self.gate.replies is None and self.gate and (exc is None or isinstance(exc, ServiceError)) \
                and not isinstance(exc, Unavailable):
            try:  # a repeat, or a request refused before its take: its RateLimit headers all the same
                services().limits.look(self.gate)
            except redis.RedisError:
                pass
        unconfirmed = isinstance(exc, Unavailable) and exc.code.endswith("_unconfirmed")
        if self._taken is not None and not self._kept and not unconfirmed:
            counted, stamp = self._taken
            self._taken = None
            try:
                if counted:
                    services().limits.uncount(counted, stamp)
            except redis.RedisError:  # best effort: the window stays a hit fuller; the error is the request's
                if exc_type is None:
                    raise
