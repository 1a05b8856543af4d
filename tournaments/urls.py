from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.i18n import set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from tournaments.api import errors
from tournaments.health import healthz

DOCS_POLICY = csp_update({"style-src": [UNSAFE_INLINE], "img-src": ["data:"], "worker-src": ["blob:"]})

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI and ReDoc from the drf-spectacular-sidecar's static files: no CDN needed. Under
    # the site's Content-Security-Policy (settings.py): Swagger UI's start-up script is served as
    # a file (?script), not inline; both draw with inline styles and data: images, and ReDoc
    # searches in a worker it makes from a blob:. Scripts stay the site's own files only.
    path("api/docs/", DOCS_POLICY(SpectacularSwaggerSplitView.as_view(url_name="schema")), name="api-docs"),
    path("api/redoc/", DOCS_POLICY(SpectacularRedocView.as_view(url_name="schema", template_name="api/redoc.html")),
         name="api-redoc"),
    path("api/", include("tournaments.api.urls")),
    # Last: any other path under /api/ is a JSON 404, with DEBUG on or off (errors.not_found).
    re_path(r"^api/", errors.not_found, name="api-not-found"),
    path("admin/", admin.site.urls),
    # The language switch of the pages: POST language=it|en, sets the django_language cookie.
    path("i18n/setlang/", set_language, name="set_language"),
    # The public pages (tournaments/web, docs/web.md): after the API and its catch-all.
    path("", include("tournaments.web.urls")),
]

# DEBUG false: JSON under /api/, Django's pages elsewhere (404s under /api/ never get here).
handler400 = "tournaments.api.errors.bad_request"
handler500 = "tournaments.api.errors.server_error"
