"""What the API answers when a request fails: always JSON, whatever DEBUG is, in one shape
(the ``Error`` schema of ``/api/schema/``, tournaments/api/schema.py)::

    {"error": {"code": "conflict", "message": "the match is over", "fields": {"match": ["the match is over"]}}}

* ``code``: what kind of refusal, for programs (CODES below, and the services' own: ``unique``,
  ``illegal``...);
* ``message``: a sentence for people: the reason, or the fields at fault with their first
  message;
* ``fields`` (400, 409, 422 when a field is at fault): each field at fault with its messages;
  ``non_field_errors`` for the body as a whole, dotted names for nested ones (``scores.1``,
  ``options.hands``).

Service errors (tournaments.services.ServiceError) name their field; their code picks the
status (``conflict`` 409, ``forbidden`` 403, ``illegal`` 422, ``not_found`` 404, anything else 400).

Outside the views: an unknown path under /api/ is answered by :func:`not_found` (the last
route of tournaments/urls.py, so that Django's HTML 404 page, technical or not, never answers
for the API); an exception a view lets through is answered by
tournaments.api.middleware.ApiErrorsMiddleware with :func:`server_error_response`; a body over
API_MAX_BODY_BYTES is refused 413 by that middleware too.
"""

from __future__ import annotations

import logging
import secrets

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.errors import ServiceError

API_PREFIX = "/api/"

STATUS = {"conflict": status.HTTP_409_CONFLICT, "forbidden": status.HTTP_403_FORBIDDEN, "unique": status.HTTP_400_BAD_REQUEST,
          "illegal": status.HTTP_422_UNPROCESSABLE_ENTITY, "not_found": status.HTTP_404_NOT_FOUND}

# Where a 500's traceback goes: Django's own logger for failed requests, so that whatever a
# deployment attaches to it (mail to the admins, an error tracker) sees the API's failures too.
request_logger = logging.getLogger("django.request")


def is_api(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


def max_body_bytes() -> int:
    return settings.API_MAX_BODY_BYTES


def django_upload_limit() -> int:
    """The limit Django's own DATA_UPLOAD_MAX_MEMORY_SIZE sets (DRF's JSON and form parsers
    read the body through request.body, which enforces it), when lower than ours."""
    return min(max_body_bytes(), settings.DATA_UPLOAD_MAX_MEMORY_SIZE or max_body_bytes())


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"

    def __init__(self, limit: int | None = None) -> None:
        limit = max_body_bytes() if limit is None else limit
        super().__init__(f"the request body is larger than the API accepts ({limit} bytes)")


def flatten(detail, prefix: str = "", out: dict | None = None) -> dict[str, list[str]]:
    """DRF's nested error details (dicts by field, lists by position, lists of messages) as
    ``{"field.sub.0": ["message", ...]}``: one level, every value a list of strings."""
    out = {} if out is None else out
    if isinstance(detail, dict):
        for key, value in detail.items():
            flatten(value, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(detail, (list, tuple)):
        for index, item in enumerate(detail):
            if isinstance(item, (dict, list, tuple)):
                flatten(item, f"{prefix}.{index}" if prefix else str(index), out)
            else:
                out.setdefault(prefix or api_settings.NON_FIELD_ERRORS_KEY, []).append(str(item))
    elif detail is not None:
        out.setdefault(prefix or api_settings.NON_FIELD_ERRORS_KEY, []).append(str(detail))
    return out


# The code of a refusal with no more specific one, by status.
CODES = {
    400: "invalid", 401: "not_authenticated", 403: "permission_denied", 404: "not_found",
    405: "method_not_allowed", 406: "not_acceptable", 409: "conflict", 413: "request_too_large",
    415: "unsupported_media_type", 422: "illegal", 429: "throttled", 500: "server_error",
}


def error_body(data, status_code: int, code: str | None = None, message: str | None = None) -> dict:
    """Any refusal in the one documented shape: a message for the request as a whole (a
    string, or DRF's ``{"detail": ...}``) or the fields at fault (anything else, flattened);
    ``message``, when given, says it instead of the fields' first messages."""
    fields = {}
    if isinstance(data, str):
        message = message or data
    elif isinstance(data, dict) and set(data) == {"detail"} and isinstance(data["detail"], str):
        message = message or data["detail"]
    else:
        fields = flatten(data)
    if message is None:
        message = "; ".join(f"{name}: {messages[0]}" if name != api_settings.NON_FIELD_ERRORS_KEY else messages[0]
                            for name, messages in fields.items() if messages) or "the request was refused"
    error = {"code": code or CODES.get(status_code, "invalid"), "message": message}
    if fields:
        error["fields"] = fields
    return {"error": error}


def _code_of(exc) -> str | None:
    """DRF's code for its own refusals (not_authenticated, authentication_failed, throttled,
    parse_error...); None for a validation error (the status says it)."""
    if isinstance(exc, exceptions.ValidationError):
        return None
    return getattr(exc, "default_code", None)


def exception_handler(exc, context):
    if isinstance(exc, ServiceError):
        status_code = STATUS.get(exc.code, status.HTTP_400_BAD_REQUEST)
        # Its message is the sentence; its field, if it names one, is the field at fault.
        return Response(error_body(exc.as_dict() if exc.field else exc.message, status_code, exc.code, exc.message),
                        status=status_code)
    # Django refusing to read the body (DATA_UPLOAD_MAX_MEMORY_SIZE and its siblings) is a
    # SuspiciousOperation, which DRF would let through as a 500 with DEBUG or an HTML 400.
    if isinstance(exc, RequestDataTooBig):
        exc = RequestTooLarge(django_upload_limit())
    elif isinstance(exc, (TooManyFieldsSent, TooManyFilesSent)):
        exc = exceptions.ParseError(str(exc))
    response = drf_exception_handler(exc, context)
    if response is not None:
        response.data = error_body(response.data, response.status_code, _code_of(exc))
    return response


def error_response(status_code: int, message: str, code: str | None = None, **headers) -> JsonResponse:
    response = JsonResponse(error_body(message, status_code, code), status=status_code)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def server_error_response(request, exc: BaseException | None) -> JsonResponse:
    """500 with a reference to the log line that holds the traceback; the body never says
    more than that."""
    reference = secrets.token_hex(4)
    request_logger.error(
        "Internal Server Error: %s (reference %s)", request.path, reference,
        exc_info=(type(exc), exc, exc.__traceback__) if exc is not None else None,
        extra={"status_code": 500, "request": request},
    )
    response = error_response(500, f"server error: the failure is logged under reference {reference}")
    response._has_been_logged = True  # Django's log_response: logged above, with the traceback
    return response


def _with_slash(request) -> str | None:
    """The path with a slash appended, when that is a route of the API (APPEND_SLASH)."""
    if not settings.APPEND_SLASH or request.path_info.endswith("/"):
        return None
    try:
        match = resolve(request.path_info + "/")
    except Resolver404:
        return None
    return None if match.func is not_found else request.path + "/"


@csrf_exempt
def not_found(request, *args, **kwargs):
    """Any path under /api/ that no route takes: 404 in JSON. (Django answers an unknown path
    with its technical HTML page when DEBUG is true, whatever handler404 says: hence a route.)
    A path missing only its final slash is redirected for GET and HEAD, as APPEND_SLASH would,
    and named in the 404 for other methods, whose body a redirect would lose."""
    slashed = _with_slash(request)
    if slashed is not None:
        if request.method in ("GET", "HEAD"):
            query = request.META.get("QUERY_STRING", "")
            return HttpResponsePermanentRedirect(slashed + (f"?{query}" if query else ""))
        return error_response(404, f"no such endpoint: {request.path} (the API's paths end with a slash: {slashed})")
    return error_response(404, f"no such endpoint: {request.path}")


def bad_request(request, exception=None):
    """handler400 (DEBUG false): JSON under /api/, Django's page elsewhere."""
    if is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return error_response(413, str(RequestTooLarge(django_upload_limit()).detail))
        reason = "bad request" if not isinstance(exception, SuspiciousOperation) else "bad request: refused as suspicious"
        return error_response(400, reason)
    return defaults.bad_request(request, exception)


def server_error(request):
    """handler500 (DEBUG false; failures outside the views, the views' own are answered by
    ApiErrorsMiddleware): JSON under /api/, Django's page elsewhere. Django has logged it."""
    if is_api(request):
        return error_response(500, "server error: the failure is logged")
    return defaults.server_error(request)
