"""flask-smorest's Blueprint with a JSON body parser that refuses what ``json`` cannot hold.

A body nested thousands deep (RecursionError) or a number of thousands of digits (Python's limit
on converting long integers, ValueError) is not valid input to this API: both are answered like
any malformed body, 400 ``malformed_json``, instead of escaping as a 500.
"""

from __future__ import annotations

import json

import flask_smorest
from webargs.flaskparser import FlaskParser


class JsonParser(FlaskParser):
    def _raw_load_json(self, req):
        try:
            return super()._raw_load_json(req)
        except json.JSONDecodeError:
            raise
        except (RecursionError, ValueError) as e:  # too deep, or a number too long to convert
            # a non-empty document: webargs reads an empty one as "no body at all"
            raise json.JSONDecodeError(f"unreadable JSON: {type(e).__name__}", "(body)", 0) from None


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = JsonParser()
