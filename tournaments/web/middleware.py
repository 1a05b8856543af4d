"""The pages' language, and only theirs."""

from __future__ import annotations

from django.conf import settings
from django.middleware import locale
from django.utils import translation

# Answered in English whatever the browser asks: the API's messages are a contract for programs
# (docs/api.md, "Errors"), and its JSON must not vary with Accept-Language.
ENGLISH_ONLY = ("/api/",)


class LocaleMiddleware(locale.LocaleMiddleware):
    """Django's LocaleMiddleware (the django_language cookie that set_language sets, else the
    browser's Accept-Language), except under /api/, which keeps LANGUAGE_CODE and sends no
    Content-Language or Vary: Accept-Language."""

    def process_request(self, request):
        if request.path_info.startswith(ENGLISH_ONLY):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = translation.get_language()
            return None
        return super().process_request(request)

    def process_response(self, request, response):
        if request.path_info.startswith(ENGLISH_ONLY):
            return response
        return super().process_response(request, response)
