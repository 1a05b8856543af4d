"""The pages' language, and only theirs; a sign-in refused outside the API."""

from __future__ import annotations

from django.conf import settings
from django.middleware import locale
from django.utils import translation

from tournaments.signin import SignInRefused
from tournaments.web import organise

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


class SignInRefusedMiddleware:
    """A sign-in attempt beyond its budget (tournaments/signin.py) that no view caught, as on
    the admin's login: 429 with ``Retry-After``, and a page in the site's layout saying how long
    to wait. Under /api/, DRF's views answer it themselves, in JSON."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, SignInRefused):
            return None
        return organise.throttled(organise.refused(request, organise.too_many(exception.wait, exception.by), 429),
                                  exception.wait)
