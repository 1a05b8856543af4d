"""The OpenAPI schema as the API really answers: every operation also lists the error statuses
it can send, each with the ``Error`` body of tournaments/api/errors.py.

``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]`` is :class:`AutoSchema`. To the responses a view
declares (``@extend_schema(responses=...)``, kept as they are) it adds:

=====  ==================================================================================
400    operations with a request body or query parameters (filters and pagination
       included), and every unsafe method (a service may refuse the request: ServiceError)
401    every operation of a view that has an authentication scheme able to refuse
       credentials (``authenticate_header``: a wrong, revoked or expired token is refused
       on any endpoint, reads included; so is a request without credentials where the
       permissions want some)
403    every unsafe method (POST, PUT, PATCH, DELETE), and operations that declare it
404    every operation with a path parameter
409    operations that declare it
413    operations with a request body (over API_MAX_BODY_BYTES)
415    operations with a request body (in a media type the API does not read)
429    views with throttles (``throttle_classes``)
=====  ==================================================================================

A view declares further error statuses (409, or 403 on a read) in one of three ways:

* list them in its responses; a declared 4xx without a body gets the ``Error`` body::

      @extend_schema(responses={200: ReplaySerializer, 409: OpenApiResponse(description="not yet")})

* or spread :func:`error_responses` into them::

      @extend_schema(responses={201: SubmissionSerializer, **error_responses(409)})

* or mark the action method, or the whole view class, with :func:`api_errors`::

      @api_errors(409)
      @action(detail=True, methods=["post"])
      def retry(self, request, pk=None): ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiResponse
from rest_framework.throttling import ScopedRateThrottle

ERROR = "Error"

#: The body of every error answer (tournaments/api/errors.py).
ERROR_SCHEMA = {
    "type": "object",
    "description": "Why the request failed (docs/api.md, \"Errors\").",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "the kind of refusal, for programs: invalid, unique, "
                                                          "not_authenticated, authentication_failed, "
                                                          "permission_denied, forbidden, not_found, "
                                                          "method_not_allowed, conflict, illegal, "
                                                          "request_too_large, unsupported_media_type, "
                                                          "parse_error, throttled, server_error..."},
                "message": {"type": "string", "description": "the reason, for people"},
                "fields": {
                    "type": "object", "description": "the fields at fault, each with its messages "
                                                     "(non_field_errors: the body as a whole; dotted names for "
                                                     "nested fields)",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
            },
            "required": ["code", "message"],
            "additionalProperties": False,
        },
    },
    "required": ["error"],
    "additionalProperties": False,
}

DESCRIPTIONS = {
    400: "Invalid request: the fields at fault with their messages, or the reason",
    401: "Credentials needed, or the ones sent are wrong, revoked or expired (see WWW-Authenticate)",
    403: "Not allowed to the caller: the reason",
    404: "No such object (or one the caller may not see)",
    409: "Not now: the object's state does not allow it; the reason",
    413: "Request body over the API's limit (API_MAX_BODY_BYTES)",
    415: "Request body in a media type the API does not read (send application/json)",
    422: "Not a legal move now: the rule the engine gave, in the field at fault",
    429: "Too many requests: retry after Retry-After seconds",
}

HEADERS = {
    401: {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "the authentication scheme to use"}},
    429: {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait before trying again"}},
}

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}

T = TypeVar("T")


def api_errors(*codes: int) -> Callable[[T], T]:
    """Mark an action method or a view class as also answering these error statuses."""

    def mark(target: T) -> T:
        target.api_errors = frozenset(codes) | frozenset(getattr(target, "api_errors", ()))  # type: ignore[attr-defined]
        return target

    return mark


def error_responses(*codes: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """``{code: OpenApiResponse}`` with the Error body, to spread into
    ``@extend_schema(responses=...)``; ``descriptions`` by ``"409"``-style names or
    ``e409=``: ``error_responses(409, e409="the match is finished")``."""
    out = {}
    for code in codes:
        text = descriptions.get(f"e{code}") or descriptions.get(str(code)) or DESCRIPTIONS.get(code, "")
        out[code] = OpenApiResponse(response=ERROR_SCHEMA, description=text)
    return out


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation.setdefault("responses", {})
        for code in sorted(self.error_statuses(operation)):
            responses.setdefault(str(code), {"description": DESCRIPTIONS.get(code, "")})
        for key, response in responses.items():
            if key.isdigit() and 400 <= int(key) < 600:
                self._as_error(int(key), response)
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    # Which statuses --------------------------------------------------------------------------

    def error_statuses(self, operation: dict) -> set[int]:
        parameters = operation.get("parameters", [])
        has_body = "requestBody" in operation
        codes: set[int] = set(self.declared_errors())
        if has_body or self.method in UNSAFE or any(p.get("in") == "query" for p in parameters):
            codes.add(400)
        if self._can_refuse_credentials():
            codes.add(401)
        if self.method in UNSAFE:
            codes.add(403)
        if any(p.get("in") == "path" for p in parameters):
            codes.add(404)
        if has_body:
            codes.update((413, 415))
        if self._throttled():
            codes.add(429)
        return codes

    def declared_errors(self) -> Iterable[int]:
        """What the view class and the handling method say with :func:`api_errors`."""
        codes = set(getattr(type(self.view), "api_errors", ()))
        handler = self._handler()
        if handler is not None:
            codes |= set(getattr(handler, "api_errors", ()))
        return codes

    def _handler(self):
        action = getattr(self.view, "action", None)
        name = action or self.method.lower()
        return getattr(self.view, name, None) if name else None

    def _can_refuse_credentials(self) -> bool:
        for authenticator in self.view.get_authenticators():
            try:
                if authenticator.authenticate_header(self.view.request):
                    return True
            except Exception:  # noqa: BLE001 - an authenticator that needs a real request: assume it can
                return True
        return False

    def _throttled(self) -> bool:
        for throttle in getattr(self.view, "throttle_classes", ()) or ():
            if isinstance(throttle, type) and issubclass(throttle, ScopedRateThrottle):
                if getattr(self.view, "throttle_scope", None):
                    return True
            else:
                return True
        return False

    # The bodies ------------------------------------------------------------------------------

    def _error_ref(self) -> dict:
        component = ResolvedComponent(name=ERROR, type=ResolvedComponent.SCHEMA, schema=ERROR_SCHEMA, object=ERROR)
        self.registry.register_on_missing(component)
        return component.ref

    def _as_error(self, code: int, response: dict) -> None:
        """A declared or added error response: the Error body (unless the view gave one) and
        the headers that come with the status."""
        if not response.get("description"):
            response["description"] = DESCRIPTIONS.get(code, "")
        content = response.get("content")
        if not content:
            response["content"] = {"application/json": {"schema": self._error_ref()}}
        else:
            for media in content.values():
                if media.get("schema") == ERROR_SCHEMA:  # from error_responses()
                    media["schema"] = self._error_ref()
        if code in HEADERS:
            response["headers"] = {**HEADERS[code], **response.get("headers", {})}
