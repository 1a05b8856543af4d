"""The OpenAPI schema, and Swagger UI and ReDoc served from this site's own static files."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

DOC_PAGES = ["/api/docs/", "/api/redoc/"]


def test_the_openapi_schema_is_served(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Mazziere API"


def referenced_urls(html: str) -> list[str]:
    """Every URL the page makes the browser load: src and href attributes, and CSS url()s."""
    return re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html) + re.findall(r"url\(([^)]+)\)", html)


@pytest.mark.parametrize("page", DOC_PAGES)
def test_the_docs_pages_load_nothing_from_another_host(client, page):
    response = client.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    urls = referenced_urls(html)
    assert any("/static/" in url for url in urls), urls
    for url in urls:
        parts = urlsplit(url.strip("'\""))
        assert not parts.scheme and not parts.netloc, f"{page} loads {url}"
    assert not re.search(r"https?://", html), re.findall(r"https?://[^\s\"'<>]+", html)
    if page == "/api/docs/":  # nor Swagger UI's start-up script, served from ?script (the CSP: no inline script)
        script = client.get(page, {"script": ""}).content.decode()
        assert not re.search(r"https?://", script), re.findall(r"https?://[^\s\"'<>]+", script)
        assert '"validatorUrl": null' in script  # its validity badge would send the schema to validator.swagger.io


def static_paths(client, page) -> list[str]:
    html = client.get(page).content.decode()
    return [url for url in referenced_urls(html) if url.startswith("/static/")]


@pytest.mark.parametrize("page", DOC_PAGES)
def test_the_static_files_the_docs_pages_reference_are_served(client, settings, page):
    # What `manage.py runserver` has: WhiteNoise finding the files in the apps as they change.
    settings.WHITENOISE_AUTOREFRESH = True
    paths = static_paths(client, page)
    assert paths
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        assert b"".join(response.streaming_content), path


def test_with_debug_off_and_no_build_step_the_static_files_are_served(settings, tmp_path):
    """A deployment by hand (DEBUG=false, nothing collected, WhiteNoise listing the files once
    at start): Swagger UI's and ReDoc's assets, the pages' styles and the admin's answer 200
    (and through gunicorn as compose runs it: tests/test_docker.py)."""
    from django.test import Client

    settings.DEBUG = False
    settings.WHITENOISE_AUTOREFRESH = False
    settings.STATIC_ROOT = tmp_path / "never-collected"
    client = Client()  # its WhiteNoise is made with these settings, at its first request
    paths = [path for page in DOC_PAGES for path in static_paths(client, page)]
    paths += ["/static/web/site.css", "/static/web/play.js", "/static/admin/css/base.css"]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        assert b"".join(response.streaming_content), path
    assert client.get("/static/web/nothing-here.css").status_code == 404


def test_after_collectstatic_whitenoise_serves_the_docs_assets(client, settings, tmp_path):
    """For whoever collects them to serve elsewhere: WhiteNoise serves STATIC_ROOT too."""
    settings.STATIC_ROOT = tmp_path / "static"
    settings.WHITENOISE_USE_FINDERS = False
    settings.WHITENOISE_AUTOREFRESH = False
    call_command("collectstatic", "--noinput", verbosity=0)
    for page in DOC_PAGES:
        for path in static_paths(client, page):
            response = client.get(path)
            assert response.status_code == 200, path
            assert b"".join(response.streaming_content), path


# The error responses of the schema (tournaments/api/schema.py) ---------------------------------

@pytest.fixture(scope="module")
def openapi():
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    return schema


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield path, method.upper(), operation


def test_the_error_schema_is_the_shape_the_api_sends(openapi):
    schema = openapi["components"]["schemas"]["Error"]
    # Exactly {"error": {...}}, nothing beside it.
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"error"}
    assert schema["required"] == ["error"] and schema["additionalProperties"] is False
    # The error: a code and a message (strings), and the fields at fault when there are any.
    error = schema["properties"]["error"]
    assert error["type"] == "object"
    assert set(error["properties"]) == {"code", "message", "fields"}
    assert error["properties"]["code"]["type"] == "string"
    assert error["properties"]["message"]["type"] == "string"
    assert sorted(error["required"]) == ["code", "message"] and error["additionalProperties"] is False
    # fields: each field at fault with its messages, a list of strings.
    fields = error["properties"]["fields"]
    assert fields["type"] == "object"
    assert fields["additionalProperties"] == {"type": "array", "items": {"type": "string"}}


@pytest.mark.django_db
def test_the_api_answers_refusals_in_the_error_schema(openapi, client):
    """What the API sends validates against the Error schema, and the old shapes would not."""
    import json

    import jsonschema
    from django.contrib.auth import get_user_model

    validator = jsonschema.Draft202012Validator(openapi["components"]["schemas"]["Error"])
    for old in ({"detail": "no"}, {"name": ["blank"]}, {"error": {"message": "no"}},
                {"error": {"code": "invalid", "message": "no", "fields": {"name": "blank"}}},
                {"error": {"code": "invalid", "message": "no", "detail": "no"}}):
        assert not validator.is_valid(old), old
    post = lambda path, body: client.post(path, json.dumps(body) if not isinstance(body, str) else body,  # noqa: E731
                                          content_type="application/json")
    answers = {
        "not found": client.get("/api/players/999999/"),
        "no endpoint": client.get("/api/nothing-here/"),
        "not signed in": post("/api/players/", {"name": "x", "kind": "person"}),
    }
    client.force_login(get_user_model().objects.create_user("organiser", is_staff=True))
    answers["fields at fault"] = post("/api/players/", {"name": "", "kind": "nonsense"})
    answers["not json"] = post("/api/players/", "{not json")
    answers["method"] = client.put("/api/players/", "{}", content_type="application/json")
    seen_fields = False
    for what, answer in answers.items():
        assert 400 <= answer.status_code < 500, (what, answer.status_code)
        body = answer.json()
        validator.validate(body)
        seen_fields |= "fields" in body["error"]
    assert seen_fields


def test_every_operation_lists_the_errors_it_can_send(openapi):
    error_ref = {"$ref": "#/components/schemas/Error"}
    for path, method, operation in operations(openapi):
        codes = set(operation["responses"])
        has_body = "requestBody" in operation
        params = operation.get("parameters", [])
        where = f"{method} {path}"
        assert "401" in codes, where
        assert "429" in codes and "Retry-After" in operation["responses"]["429"]["headers"], where  # every caller has a budget
        assert ("404" in codes) == any(p["in"] == "path" for p in params), where
        assert ("413" in codes) == has_body and ("415" in codes) == has_body, where
        if has_body or method != "GET" or any(p["in"] == "query" for p in params):
            assert "400" in codes, where
        if method != "GET":
            assert "403" in codes, where
        for code, response in operation["responses"].items():
            if code >= "400":
                assert response["content"]["application/json"]["schema"] == error_ref, (where, code)
                assert response["description"], (where, code)
        # The successful answers are the views' own.
        assert any(code < "300" for code in codes), where
    assert "409" in openapi["paths"]["/api/matches/{id}/replay/"]["get"]["responses"]
    unauthorized = openapi["paths"]["/api/players/"]["get"]["responses"]["401"]
    assert "WWW-Authenticate" in unauthorized["headers"]


def test_a_view_declares_more_error_statuses():
    """@api_errors on an action or a view, error_responses() in @extend_schema, or a declared
    4xx without a body: each ends up with the Error body."""
    from django.urls import include, path
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.utils import OpenApiResponse, extend_schema
    from rest_framework import serializers, viewsets
    from rest_framework.decorators import action
    from rest_framework.response import Response
    from rest_framework.routers import SimpleRouter

    from tournaments.api.schema import api_errors, error_responses

    class ThingSerializer(serializers.Serializer):
        name = serializers.CharField()

    @api_errors(418)
    class ThingViewSet(viewsets.ViewSet):
        serializer_class = ThingSerializer

        @extend_schema(request=None, responses=ThingSerializer)
        @api_errors(409)
        @action(detail=True, methods=["post"])
        def poke(self, request, pk=None):
            return Response({})

        @extend_schema(request=None, responses={200: ThingSerializer, **error_responses(409, e409="busy")})
        @action(detail=True, methods=["post"])
        def prod(self, request, pk=None):
            return Response({})

        @extend_schema(responses={200: ThingSerializer, 409: OpenApiResponse(description="not yet")})
        @action(detail=True)
        def peek(self, request, pk=None):
            return Response({})

    router = SimpleRouter()
    router.register("things", ThingViewSet, basename="thing")
    schema = SchemaGenerator(patterns=[path("api/", include(router.urls))]).get_schema(request=None, public=True)
    error_ref = {"$ref": "#/components/schemas/Error"}
    poke = schema["paths"]["/api/things/{id}/poke/"]["post"]["responses"]
    prod = schema["paths"]["/api/things/{id}/prod/"]["post"]["responses"]
    peek = schema["paths"]["/api/things/{id}/peek/"]["get"]["responses"]
    assert {"409", "418"} <= set(poke) and "418" in peek and "409" in prod
    assert prod["409"]["description"] == "busy" and peek["409"]["description"] == "not yet"
    for responses in (poke, prod, peek):
        assert responses["409"]["content"]["application/json"]["schema"] == error_ref
