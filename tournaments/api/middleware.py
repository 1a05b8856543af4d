"""The API's answers that no view gives: requests over the body size limit (413), bodies that
are not JSON (415), and exceptions a view lets through (500), all in JSON
(tournaments/api/errors.py), whatever DEBUG is. Paths outside /api/ are left to Django."""

from __future__ import annotations

from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import JsonResponse

from tournaments.api import errors, parsers

NOT_JSON = f"the API reads JSON request bodies only (Content-Type: {parsers.MEDIA_TYPE}), not {{what}}"


def has_body(request) -> bool:
    """The request carries a body: a Content-Length above 0, or one sent in chunks."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    return declared > 0 or "HTTP_TRANSFER_ENCODING" in request.META


class CappedStream:
    """A request body stream that refuses to yield more than ``limit`` bytes in all: what
    bounds the bytes actually read when the Content-Length is absent or wrong (under WSGI,
    Django already reads no more than the Content-Length says)."""

    def __init__(self, stream, limit: int) -> None:
        self._stream = stream
        self._limit = limit
        self._read = 0

    def _count(self, data: bytes) -> bytes:
        self._read += len(data)
        if self._read > self._limit:
            raise errors.RequestTooLarge(self._limit)
        return data

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            # Never more than one byte past the limit: enough to know it was passed.
            size = self._limit - self._read + 1
        return self._count(self._stream.read(size))

    def readline(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self._limit - self._read + 1
        return self._count(self._stream.readline(size))

    def __getattr__(self, name):
        return getattr(self._stream, name)


class ApiErrorsMiddleware:
    """Put it near the top of MIDDLEWARE (after SecurityMiddleware and WhiteNoise), so that a
    body over the limit is refused before anything reads it."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if errors.is_api(request):
            limit = errors.max_body_bytes()
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > limit:
                return errors.error_response(413, str(errors.RequestTooLarge(limit).detail))
            # Whether or not the view reads it: one rule for every endpoint (parsers.py).
            if has_body(request) and request.content_type != parsers.MEDIA_TYPE:
                what = repr(request.content_type) if request.content_type else "a body without a Content-Type"
                return errors.error_response(415, NOT_JSON.format(what=what))
            if hasattr(request, "_stream"):
                request._stream = CappedStream(request._stream, limit)
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not errors.is_api(request):
            return None
        # Raised outside a DRF view (whose own handler answers these): Http404, PermissionDenied,
        # APIException and ServiceError as the views answer them, Django's refusals as 400.
        handled = errors.exception_handler(exception, {"request": request})
        if handled is not None:
            response = JsonResponse(handled.data, status=handled.status_code)
            for name, value in handled.items():
                if name.lower() != "content-type":
                    response[name] = value
            return response
        if isinstance(exception, (BadRequest, SuspiciousOperation)):
            return errors.error_response(400, "bad request")
        return errors.server_error_response(request, exception)
