"""Service errors become API answers that name the field and the rule."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.services import ServiceError

STATUS = {"conflict": status.HTTP_409_CONFLICT, "forbidden": status.HTTP_403_FORBIDDEN, "unique": status.HTTP_400_BAD_REQUEST}


def exception_handler(exc, context):
    if isinstance(exc, ServiceError):
        return Response(exc.as_dict(), status=STATUS.get(exc.code, status.HTTP_400_BAD_REQUEST))
    return drf_exception_handler(exc, context)
