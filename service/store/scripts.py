"""Lua scripts: the ``.lua`` files beside the data modules, each with the files it needs
(``-- needs: <file>`` lines) put before it, registered to be run by EVALSHA.
"""

from __future__ import annotations

import re
from pathlib import Path

import redis


def load_script(client: redis.Redis, package_file: str, name: str):
    """Register the Lua script ``name`` that sits beside ``package_file`` (EVALSHA, loaded on demand)."""
    return client.register_script(script_source(Path(package_file).parent / name))


_NEEDS = re.compile(r"^-- needs: (\S+)$", re.MULTILINE)


def script_needs(path: Path) -> list[str]:
    """The files (beside it) that the Lua script at ``path`` names on its ``-- needs: <file>`` lines."""
    return _NEEDS.findall(path.read_text(encoding="utf-8"))


def script_source(path: Path) -> str:
    """The text of the Lua script at ``path`` as sent to Redis: the files it needs first, then its
    own (Redis 6 keeps no functions shared by scripts)."""
    return "".join(script_source(path.parent / need) for need in script_needs(path)) + path.read_text(encoding="utf-8")


def evalsha_on(pipe, script, keys: list, args: list) -> None:
    """``script`` (from ``load_script``) queued on ``pipe`` by its SHA alone: redis-py's own way
    asks Redis whether it is loaded on every execute (see ``pipeline.pipelined``)."""
    pipe.evalsha(script.sha, len(keys), *keys, *args)


def load_scripts(client, scripts) -> None:
    """Load ``scripts`` (from ``load_script``) into Redis, which lacked one (NOSCRIPT)."""
    for script in scripts:
        client.script_load(script.script)
