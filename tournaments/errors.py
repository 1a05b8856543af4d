"""The one exception services raise for bad requests: it names the field and the rule.

It lives below the services, so that what they build on (limits, the format factory) and the
readers that answer with it (feeds, exports, streams, the API's error handler) raise or catch it
without importing a service."""

from __future__ import annotations


class ServiceError(Exception):
    """A request the service refuses. ``field`` names the input at fault (None: the request
    as a whole); the API answers 400 with ``{field: [message]}``."""

    def __init__(self, message: str, field: str | None = None, code: str = "invalid") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code

    def as_dict(self) -> dict[str, list[str]]:
        return {self.field or "non_field_errors": [self.message]}
