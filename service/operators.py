"""The operators and their bearer tokens (``MANILLE_OPS_TOKENS``): who may use the ops API, the ops
page and ``manille ops``, in which role."""

from __future__ import annotations

import hmac
import re

from service.seeds import require_length


class OpsTokens:
    """The operators and their bearer tokens (``MANILLE_OPS_TOKENS``): a line each, "name token"
    or "name token role" (blank lines and lines starting with # are skipped), so that the audit log
    names the person whose token acted (``name@address``).  A ``reviewer`` reads, notes and sees
    reports; a ``decider`` (a line without a role) also disqualifies, restores, restricts, lifts,
    rebuilds and answers appeals.  A name is 1 to 64 of letters, digits and ``._-``; a
    token at least ``MIN_SECRET_BYTES`` bytes with no space; names and tokens are unique.
    ValueError (or ShortSecretError) naming the line otherwise.  Its repr names the operators only."""

    NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
    ROLES = ("reviewer", "decider")

    def __init__(self, text: str = "", where: str = "MANILLE_OPS_TOKENS") -> None:
        self._tokens: list[tuple[str, bytes]] = []
        self._roles: dict[str, str] = {}
        names, tokens = set(), set()
        for n, raw in enumerate((text or "").splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) not in (2, 3) or not self.NAME.fullmatch(parts[0]) \
                    or (len(parts) == 3 and parts[2] not in self.ROLES):
                raise ValueError(f"{where} line {n}: \"name token\" expected, or \"name token role\" (a name "
                                 "of letters, digits and ._-, a space, the token; role reviewer or decider)")
            name, token = parts[:2]
            self._roles[name] = parts[2] if len(parts) == 3 else "decider"
            require_length(f"{where} line {n} (the token of {name})", token)
            if name in names or token in tokens:
                raise ValueError(f"{where} line {n}: {'the name ' + name if name in names else 'the token'} "
                                 "appears twice: one token per operator")
            names.add(name)
            tokens.add(token)
            self._tokens.append((name, token.encode()))

    def __bool__(self) -> bool:
        return bool(self._tokens)

    def __repr__(self) -> str:
        return f"OpsTokens(operators={self.names()})"

    def names(self) -> list[str]:
        return [name for name, _ in self._tokens]

    def role_of(self, name: str) -> str | None:
        """The operator's role (``reviewer`` or ``decider``), None for no such operator."""
        return self._roles.get(name)

    def name_of(self, token: str) -> str | None:
        """The operator whose token ``token`` is, or None.  Every token is compared, in constant
        time, whichever matches: the time taken says nothing of which one is close."""
        given, found = token.encode(), None
        for name, expected in self._tokens:
            if hmac.compare_digest(given, expected):
                found = name
        return found
