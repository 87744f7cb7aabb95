"""Answers a cache may keep, made conditional: a strong ETag, and ``304 Not Modified`` with no body
to a request whose ``If-None-Match`` names it.  Shared by the API's public reads
(``service.api.caching``) and the page other sites frame (``service.web.embed``)."""

from __future__ import annotations

import hashlib

from flask import Request, Response


def etag_of(body: bytes) -> str:
    """A strong validator of ``body``: 128 bits of BLAKE2b, which changes with any byte."""
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def keepable(resp: Response, req: Request, max_age: int, etag: str | None = None) -> Response:
    """``resp`` (200) said public for ``max_age`` seconds with its ETag (``etag``, else its body's
    hash), and made a 304 if ``req`` already holds it (If-None-Match: weak comparison, as RFC 9110
    asks, ``*`` included).  werkzeug sends a 304 without a body or the headers that describe one."""
    headers = resp.headers
    headers["Cache-Control"] = f"public, max-age={max_age}"
    etag = etag or etag_of(resp.get_data())
    headers["ETag"] = f'"{etag}"'
    if resp.status_code == 200 and req.if_none_match.contains_weak(etag):
        resp.status_code = 304
        resp.response = []
    return resp
