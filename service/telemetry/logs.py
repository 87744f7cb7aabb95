"""Logs: one JSON object a line (or a text line for people), a request id on each, nothing secret.

``MANILLE_LOG_FORMAT`` json (default) or text; ``MANILLE_LOG_LEVEL`` (default info).  Read from
the environment, not ``Settings``: gunicorn's master and the worker log before any Settings exist.

Every line has ``ts`` (UTC, ms), ``level``, ``logger``, ``message`` and ``request_id`` (the
request's, ``job:<id>`` inside an RQ job, ``-`` elsewhere); access lines add ``method``,
``route`` (the URL rule, not the path: ids stay out), ``status`` and ``duration_ms``; ``exc`` holds
a traceback.  Each formatted line goes through :class:`Redactor` before it is written: the
configured secrets, 64-hex strings (a seed, a secret in hex), player tokens, bearer values and
the secrets paths carry (``/leagues/join/<invite>``, ``/duel/<code>``, a device link's code in ``/link/…`` and ``/players/links/…``) are replaced by
``[redacted]``, whichever logger wrote them (gunicorn's, RQ's, ours).

What a request sends (a path, once percent-decoded; a header; a value in an error) can hold any
character: one line stays one line in both formats.  JSON escapes it; a text line writes every
control character of its message and fields as an escape (``\\n``, ``\\x1b``, ``\\u2028``), and
each line of a traceback after the first indented, so that nothing a client sends can start a
line that reads as a line of its own.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time

from service.seeds import MissingSecretError, older_secrets, previous_from_env

FORMATS = ("json", "text")
REDACTED = "[redacted]"
#: Access-line fields, in the order a text line shows them.
ACCESS_FIELDS = ("method", "route", "status", "duration_ms")
#: Secrets shorter than this are not scrubbed literally (they would blank common words); the
#: service's own are 32 bytes or more.
MIN_SECRET = 8

_PATTERNS = re.compile(
    r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])"           # a seed or key in hex
    # a player token (token_urlsafe(24)); not 32 hex digits, which is a uuid (RQ's worker names)
    r"|(?<![A-Za-z0-9_-])(?![0-9a-f]{32}(?![A-Za-z0-9_-]))[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])"
    r"|(?i:bearer)\s+[^\s\"',;]+"                             # an Authorization value
    r"|(?i:x-player-token)[\"']?\s*[:=]\s*[\"']?[^\s\"',;]+"   # a token header written out
    # a secret a path carries (a league's invite, a duel's code), as gunicorn's access line has it
    r"|(?:(?<=/duel/)|(?<=/duels/)|(?<=/leagues/join/)|(?<=/leagues/invites/))[^/\s?\"'#]+"
    r"|(?:(?<=/link/)|(?<=/players/links/))[^\s\"'?/&]+"       # a device link's code in a path
)


def log_format(environ=os.environ) -> str:
    fmt = (environ.get("MANILLE_LOG_FORMAT") or "json").strip().lower()
    if fmt not in FORMATS:
        raise ValueError(f"MANILLE_LOG_FORMAT must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return fmt


def secrets_from_env(environ=os.environ) -> list[str]:
    """The literal secrets a line must never show: the server secret and the older ones of a rotation,
    the ops and metrics tokens (each, or its ``…_FILE``'s first line), a password in ``REDIS_URL``."""
    found = []
    for name in ("MANILLE_SECRET", "MANILLE_OPS_TOKEN", "MANILLE_METRICS_TOKEN"):
        found.append(environ.get(name, ""))
        path = environ.get(f"{name}_FILE")
        if path:
            try:
                with open(path, encoding="utf-8") as f:
                    found.append(f.readline().strip())
            except OSError:
                pass
    operators = environ.get("MANILLE_OPS_TOKENS", "")  # "name token" lines: the tokens
    if not operators.strip() and environ.get("MANILLE_OPS_TOKENS_FILE"):
        try:
            with open(environ["MANILLE_OPS_TOKENS_FILE"], encoding="utf-8") as f:
                operators = f.read()
        except OSError:
            pass
    found += [line.split()[-1] for line in operators.splitlines() if len(line.split()) == 2]
    try:  # the older secrets of a rotation (``MANILLE_SECRET_PREVIOUS``), without their dates
        found += older_secrets(previous_from_env(environ))
    except MissingSecretError:  # its file unreadable: Settings says so; a log line needs no more
        pass
    m = re.match(r"[a-z+]+://[^:@/]*:([^@/]+)@", environ.get("REDIS_URL", ""))
    if m:
        found.append(m.group(1))
    return [s.strip() for s in found if s and len(s.strip()) >= MIN_SECRET]


class Redactor:
    """Scrubs a line of the given literal secrets and of anything shaped like a seed or token."""

    def __init__(self, secrets: list[str]) -> None:
        literal = sorted(set(secrets), key=len, reverse=True)
        self._literal = re.compile("|".join(map(re.escape, literal))) if literal else None

    def __call__(self, line: str) -> str:
        if self._literal is not None:
            line = self._literal.sub(REDACTED, line)
        return _PATTERNS.sub(REDACTED, line)


def request_id() -> str:
    """The current request's id, ``job:<id>`` inside an RQ job, else ``-``.  Never imports: a
    process without Flask (or RQ) loaded has no request (or job), and an import while a signal
    handler raises would lose the line."""
    flask = sys.modules.get("flask")
    if flask is not None and flask.has_request_context():
        return flask.g.get("request_id") or "-"
    rq = sys.modules.get("rq")
    if rq is not None:
        try:
            job = rq.get_current_job()
        except Exception:  # noqa: BLE001 - outside a worker there is no job stack
            job = None
        if job is not None:
            return f"job:{job.id}"
    return "-"


#: Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: what a text
#: line must never write raw.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(text: str) -> str:
    """``text`` on one line: each control character written as ``\\n``, ``\\xNN`` or ``\\uNNNN``."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                                            else f"\\u{ord(m.group()):04x}"), text)


class _Base(logging.Formatter):
    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redact = redactor or Redactor(secrets_from_env())

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(self.render(record))


class JsonFormatter(_Base):
    """One JSON object a line."""

    def render(self, record: logging.LogRecord) -> str:
        out = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or request_id(),
        }
        for name in ACCESS_FIELDS:
            if hasattr(record, name):
                out[name] = getattr(record, name)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        # json escapes every control character; U+2028 and U+2029 it leaves, and some readers break lines there
        return json.dumps(out, ensure_ascii=False, separators=(",", ":"), default=str).replace(
            "\u2028", "\\u2028").replace("\u2029", "\\u2029")


class TextFormatter(_Base):
    """``ts level logger [request id] message`` with the access fields after it."""

    def render(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.created))
        rid = getattr(record, "request_id", None) or request_id()
        message = record.getMessage()
        line = f"{ts} {record.levelname:<7} {record.name} [{rid}] {escaped(message)}"
        extra = " ".join(f"{n}={escaped(str(getattr(record, n)))}" for n in ACCESS_FIELDS  # what the message lacks
                         if hasattr(record, n) and str(getattr(record, n)) not in message)
        if extra:
            line += " " + extra
        if record.exc_info:  # a traceback's lines, indented: none can pass for a line of the log
            line += "".join(f"\n    {escaped(part)}" for part in self.formatException(record.exc_info).splitlines())
        return line


def formatter(fmt: str | None = None) -> logging.Formatter:
    """The formatter of ``MANILLE_LOG_FORMAT`` (or ``fmt``), redacting the environment's secrets."""
    return (JsonFormatter if (fmt or log_format()) == "json" else TextFormatter)()


def _no_caller_lookup() -> None:
    """Neither format shows a line's source file: spare every log call the walk up the stack that
    finds it (the logging HOWTO's "Optimization": ``logging._srcfile = None``), a tenth of an
    access line's cost."""
    logging._srcfile = None


def configure(fmt: str | None = None, level: str | None = None, stream=None) -> None:
    """Send every logger's lines to ``stream`` (stderr) in ``fmt``: for processes that are not
    gunicorn's (the worker, scripts); gunicorn uses :func:`gunicorn_logconfig`."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(formatter(fmt))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    logging.captureWarnings(True)
    _no_caller_lookup()
    root.setLevel((level or os.environ.get("MANILLE_LOG_LEVEL") or "info").upper())


def gunicorn_logconfig() -> dict:
    """gunicorn's ``logconfig_dict``: its error log and every other logger (the app's, RQ's)
    through one stderr handler in ``MANILLE_LOG_FORMAT``.  gunicorn's own access lines only with
    ``MANILLE_ACCESS_LOG`` set (to anything; they go to the same stream): the app writes one
    access line per request itself (``service.telemetry.web``), with the request id.  Python's
    warnings become log lines too."""
    logging.captureWarnings(True)
    _no_caller_lookup()
    level = (os.environ.get("MANILLE_LOG_LEVEL") or "info").upper()
    access = "INFO" if os.environ.get("MANILLE_ACCESS_LOG") else "WARNING"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"manille": {"()": "service.telemetry.logs.formatter"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "manille",
                                "stream": "ext://sys.stderr"}},
        "root": {"level": level, "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level, "handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"level": access, "handlers": ["stderr"], "propagate": False},
        },
    }
