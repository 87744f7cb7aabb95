"""The monthly archive (``service.opendata.archive``): every closed day of a month in one gzip
file of JSON lines, listed with its size and SHA-256, and downloadable."""

from __future__ import annotations

from flask import send_file
from flask.views import MethodView

from service.errors import NotFound
from service.freshness import SETTLED
from service.opendata import LICENCE
from service.opendata.archive import MonthArchive

from .blueprint import Blueprint
from .caching import cacheable, public_read
from .common import services
from .schemas.archive import ArchiveMonthsSchema

PREFIX = "/archive"
blp = Blueprint("archive", __name__, description=(
    "The monthly archive: one file of every closed day of a month (CC0), built after the month ends."))
#: The list gains a month once a month: a cache may keep it an hour.
LIST_MAX_AGE = 3600


@blp.route("/months")
class Months(MethodView):
    @blp.response(200, ArchiveMonthsSchema)
    @public_read
    def get(self):
        """Every month built, newest first: its days, games, size in bytes and SHA-256, and its URL"""
        cacheable(LIST_MAX_AGE)
        months = MonthArchive(services().redis, services().settings).listing()
        return {"licence": LICENCE, "months": [{**m, "url": f"/api/v1/archive/months/{m['month']}"} for m in months]}


@blp.route("/months/<string:month>")
class Month(MethodView):
    @blp.doc(responses={200: {"description": "the month's file (gzip JSON lines)",
                              "content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}}},
                        404: {"description": "unknown_month"}})
    @public_read
    def get(self, month):
        """A month's file: its days' files one after another, gzip; 404 ``unknown_month`` for a month not built"""
        archive = MonthArchive(services().redis, services().settings)
        try:
            path = archive.file(month)
        except ValueError:
            path = None
        facts = archive.facts(month) if path else None
        if facts is None:
            raise NotFound(f"no archive of {month!r}: a month's file is built after it ends", code="unknown_month")
        cacheable(SETTLED, facts["sha256"])
        return send_file(path, mimetype="application/gzip", download_name=facts["file"], conditional=False,
                         etag=False, max_age=SETTLED)
