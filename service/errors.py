"""Errors the service answers with: each has a stable code, an HTTP status and optional details.

The domain modules raise them; the app turns every one (and every werkzeug / validation
error) into the one JSON envelope ``{"error": code, "message": text, ...details}``.
"""

from __future__ import annotations


class ServiceError(Exception):
    status = 400
    code = "bad_request"
    headers: dict = {}

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None,
                 **details) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.details = details

    def to_json(self) -> dict:
        return {"error": self.code, "message": self.message, **self.details}


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class Conflict(ServiceError):
    status = 409
    code = "conflict"


class Unprocessable(ServiceError):
    status = 422
    code = "unprocessable"


class TooManyRequests(ServiceError):
    """A rate limit is full; ``retry_after`` seconds until it has room (also sent as Retry-After)."""

    status = 429
    code = "too_many_requests"

    @property
    def headers(self) -> dict:
        return {"Retry-After": str(self.details["retry_after"])}


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class Unauthorized(ServiceError):
    status = 401
    code = "invalid_token"


class Unavailable(ServiceError):
    """The data store failed the request; ``retry_after`` seconds (also sent as Retry-After).  The
    code says whether the request may nevertheless have been applied (``play_unconfirmed``,
    ``submission_unconfirmed``: repeat it, it is idempotent)."""

    status = 503
    code = "unavailable"

    @property
    def headers(self) -> dict:
        return {"Retry-After": str(self.details.get("retry_after", 1))}
