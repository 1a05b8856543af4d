"""/healthz: is this process able to serve? For load balancers and the compose healthcheck."""

import logging

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from tournaments import plain

logger = logging.getLogger(__name__)


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers a trivial query, else 503.

    "celery" says how tasks run ("eager": in this process; "broker": through CELERY_BROKER_URL).
    The broker itself is not contacted: a web process can serve without it.
    """
    try:
        plain.ping()
        database = "ok"
    except DatabaseError as error:
        logger.warning("healthz: database unreachable: %s", error)
        database = f"unreachable ({type(error).__name__})"
    healthy = database == "ok"
    body = {
        "status": "ok" if healthy else "unavailable",
        "database": database,
        "celery": "eager" if settings.CELERY_TASK_ALWAYS_EAGER else "broker",
    }
    return JsonResponse(body, status=200 if healthy else 503)
