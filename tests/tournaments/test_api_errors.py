"""Every failure under /api/ is answered in JSON, in the documented shape, with DEBUG on or off;
elsewhere Django's own pages stay."""

from __future__ import annotations

import base64
import io
import json
import logging

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from tournaments.api import errors
from tournaments.api.middleware import ApiErrorsMiddleware, CappedStream
from tournaments.api.views import PlayerViewSet

pytestmark = [pytest.mark.django_db, pytest.mark.services]


@pytest.fixture(params=[True, False], ids=["debug", "no-debug"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


@pytest.fixture
def signed_in(client):
    client.force_login(get_user_model().objects.create_user("organiser", is_staff=True))
    return client


def json_error(response, status, code=None):
    """The answer's ``error`` object, checked against the Error schema (tournaments/api/schema.py):
    exactly ``{"error": {...}}``; ``code`` and ``message`` non-empty strings; ``fields``, only
    when present, a non-empty object of lists of strings; nothing else."""
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert isinstance(error, dict) and set(error) <= {"code", "message", "fields"} and {"code", "message"} <= set(error), error
    assert isinstance(error["code"], str) and error["code"], error
    assert isinstance(error["message"], str) and error["message"], error
    if "fields" in error:
        assert isinstance(error["fields"], dict) and error["fields"], error
        for name, messages in error["fields"].items():
            assert isinstance(name, str) and isinstance(messages, list) and messages, error
            assert all(isinstance(m, str) for m in messages), error
    assert error["code"] == (code or errors.CODES[status]), error
    return error


def post_json(client, path, body, **extra):
    return client.post(path, body if isinstance(body, str) else json.dumps(body), content_type="application/json", **extra)


# 404 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/nothing-here/", "/api/players/1/nothing/", "/api/tournaments/abc/", "/api/x"])
def test_an_unknown_api_path_is_a_json_404(client, debug, path):
    error = json_error(client.get(path), 404, "not_found")
    assert path in error["message"] and "fields" not in error


def test_an_unknown_api_path_is_a_json_404_for_every_method(client, debug):
    assert json_error(post_json(client, "/api/nothing-here/", {}), 404)
    assert json_error(client.delete("/api/nothing-here/"), 404)


def test_a_missing_object_is_a_json_404(client, debug):
    assert "No Player" in json_error(client.get("/api/players/999999/"), 404, "not_found")["message"]


def test_a_path_without_its_final_slash_is_still_redirected_for_get_and_named_for_post(client, debug):
    answer = client.get("/api/players?kind=bot")
    assert answer.status_code == 301 and answer["Location"] == "/api/players/?kind=bot"
    assert "/api/players/" in json_error(post_json(client, "/api/players", {}), 404)["message"]


def test_outside_the_api_django_keeps_its_own_404_page(client, debug):
    answer = client.get("/no-such-page/")
    assert answer.status_code == 404
    assert answer["Content-Type"].startswith("text/html")


# 500 ----------------------------------------------------------------------------------------

def test_an_exception_in_a_view_is_a_json_500_logged_with_its_traceback(client, debug, monkeypatch, caplog):
    def boom(self, request, *args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(PlayerViewSet, "list", boom)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        error = json_error(client.get("/api/players/"), 500, "server_error")
    assert error["message"].startswith("server error") and "fields" not in error
    assert "secret internals" not in json.dumps(error) and "Traceback" not in json.dumps(error)
    logged = [r for r in caplog.records if r.name == "django.request" and r.exc_info]
    assert len(logged) == 1, [r.getMessage() for r in caplog.records]
    assert logged[0].exc_info[0] is RuntimeError
    reference = error["message"].rsplit(" ", 1)[-1]
    assert reference in logged[0].getMessage()


def test_a_500_outside_the_api_is_left_to_django(rf):
    middleware = ApiErrorsMiddleware(lambda request: None)
    assert middleware.process_exception(rf.get("/admin/"), RuntimeError("x")) is None
    page = errors.server_error(rf.get("/admin/"))
    assert page.status_code == 500 and not page["Content-Type"].startswith("application/json")
    assert json_error(errors.server_error(rf.get("/api/players/")), 500)["message"].startswith("server error")


def test_django_exceptions_raised_outside_drf_under_the_api_keep_their_status(rf):
    from django.core.exceptions import PermissionDenied
    from django.http import Http404

    middleware = ApiErrorsMiddleware(lambda request: None)
    assert json_error(middleware.process_exception(rf.get("/api/x/"), Http404("gone")), 404) == {
        "code": "not_found", "message": "gone"}
    assert json_error(middleware.process_exception(rf.get("/api/x/"), PermissionDenied("no")), 403) == {
        "code": "permission_denied", "message": "no"}


# 400 ----------------------------------------------------------------------------------------

def test_malformed_json_is_a_json_400(signed_in, debug):
    error = json_error(post_json(signed_in, "/api/players/", "{not json"), 400, "parse_error")
    assert "JSON parse error" in error["message"] and "fields" not in error


def test_an_invalid_field_is_a_400_naming_it(signed_in, debug):
    error = json_error(post_json(signed_in, "/api/players/", {"name": "", "kind": "nonsense"}), 400, "invalid")
    assert set(error["fields"]) >= {"name", "kind"}
    # The message names each field at fault with its first message.
    for name in ("name", "kind"):
        assert f"{name}: {error['fields'][name][0]}" in error["message"], error


def test_nested_errors_are_flattened_to_dotted_fields():
    assert errors.error_body({"scores": {1: ["A valid integer is required."]}, "name": ["blank"]}, 400) == {
        "error": {"code": "invalid", "message": "scores.1: A valid integer is required.; name: blank",
                  "fields": {"scores.1": ["A valid integer is required."], "name": ["blank"]}},
    }
    assert errors.error_body([{"a": ["x"]}, {}], 400) == {
        "error": {"code": "invalid", "message": "0.a: x", "fields": {"0.a": ["x"]}}}
    assert errors.error_body(["whole body"], 400) == {
        "error": {"code": "invalid", "message": "whole body", "fields": {"non_field_errors": ["whole body"]}},
    }
    assert errors.error_body({"detail": "as is"}, 403) == {"error": {"code": "permission_denied", "message": "as is"}}
    assert errors.error_body("a reason", 409) == {"error": {"code": "conflict", "message": "a reason"}}
    assert errors.error_body("a reason", 409, "unique") == {"error": {"code": "unique", "message": "a reason"}}
    assert errors.error_body({}, 400) == {"error": {"code": "invalid", "message": "the request was refused"}}


# 413 ----------------------------------------------------------------------------------------

def test_a_body_over_the_limit_is_a_json_413_before_anything_reads_it(signed_in, debug, settings):
    settings.API_MAX_BODY_BYTES = 1024
    body = {"name": "big", "kind": "bot", "bot_kind": "builtin", "bot_config": {"bot": "random", "pad": "x" * 2000}}
    answer = post_json(signed_in, "/api/players/", body)
    assert "1024 bytes" in json_error(answer, 413, "request_too_large")["message"]
    assert not get_user_model().objects.filter(players__name="big").exists()
    # Also before authentication and routing: an anonymous caller, an unknown path.
    assert json_error(post_json(signed_in.__class__(), "/api/nothing/", body), 413, "request_too_large")


def test_the_default_limit_is_64_kib(signed_in, debug, settings):
    assert settings.API_MAX_BODY_BYTES == 64 * 1024
    under = post_json(signed_in, "/api/players/", {"name": "ok", "kind": "person", "display_name": "x" * 100})
    assert under.status_code != 413
    over = post_json(signed_in, "/api/players/", {"name": "no", "kind": "person", "display_name": "x" * 70_000})
    json_error(over, 413, "request_too_large")


def test_djangos_own_upload_limit_is_answered_413_too(signed_in, debug, settings):
    """DRF 3.18's JSON parser reads request.body, which enforces DATA_UPLOAD_MAX_MEMORY_SIZE:
    when that is the lower limit, its refusal is a JSON 413 as well, not a 400 page or a 500."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 200
    answer = post_json(signed_in, "/api/players/", {"name": "n", "kind": "person", "display_name": "x" * 500})
    assert "200 bytes" in json_error(answer, 413, "request_too_large")["message"]


def test_the_bytes_actually_read_are_capped_whatever_content_length_says():
    stream = CappedStream(io.BytesIO(b"x" * 100), limit=10)
    with pytest.raises(errors.RequestTooLarge):
        stream.read()
    stream = CappedStream(io.BytesIO(b"x" * 10), limit=10)
    assert stream.read() == b"x" * 10 and stream.read() == b""
    stream = CappedStream(io.BytesIO(b"abc\n" * 10), limit=10)
    assert stream.readline() == b"abc\n"
    with pytest.raises(errors.RequestTooLarge):
        stream.read(100)


def test_the_middleware_caps_the_stream_of_api_requests_only(settings):
    settings.API_MAX_BODY_BYTES = 10
    seen = {}
    middleware = ApiErrorsMiddleware(lambda request: seen.setdefault(request.path, request._stream))
    factory = RequestFactory()
    middleware(factory.post("/api/players/", "{}", content_type="application/json"))
    middleware(factory.post("/admin/login/", "{}", content_type="application/json"))
    assert isinstance(seen["/api/players/"], CappedStream)
    assert not isinstance(seen["/admin/login/"], CappedStream)


def test_a_request_django_refuses_before_any_view_is_a_json_400_under_the_api(client, settings):
    """handler400 (DEBUG false): e.g. a Host header not in ALLOWED_HOSTS."""
    settings.DEBUG = False
    assert json_error(client.get("/api/players/", HTTP_HOST="elsewhere.example"), 400, "invalid")["message"]
    assert not client.get("/admin/", HTTP_HOST="elsewhere.example")["Content-Type"].startswith("application/json")



# Inputs an anonymous caller once turned into 500s: each a 400 naming what is wrong ------------

# Characters str.isdigit takes that int() or the database do not (superscripts, Arabic-Indic
# digits), and runs of digits too long for int() or for any page.
NOT_PLAIN = ["²", "¹", "٣", "1" * 5000, "9" * 30, "-1", " 1"]


@pytest.mark.parametrize("path", ["/api/players/", "/api/tournaments/", "/api/matches/", "/api/ladders/"])
@pytest.mark.parametrize("value", NOT_PLAIN)
def test_a_limit_that_is_not_plain_digits_is_a_400_naming_it(client, debug, path, value):
    error = json_error(client.get(path, {"limit": value}), 400, "invalid")
    assert list(error["fields"]) == ["limit"], error


@pytest.mark.parametrize("path", ["/api/players/", "/api/tournaments/", "/api/entries/"])
@pytest.mark.parametrize("value", NOT_PLAIN)
def test_an_offset_that_is_not_plain_digits_is_a_400_naming_it(client, debug, path, value):
    error = json_error(client.get(path, {"offset": value}), 400, "invalid")
    assert list(error["fields"]) == ["offset"], error


# Cursors a list never gives: p=abc, p=1e999, p=-1, p=2**70, p=1.5, p=١ (an Arabic-Indic one), o=x&p=1.
@pytest.mark.parametrize("position", ["p=abc", "p=1e999", "p=-1", f"p={2 ** 70}", "p=1.5", "p=١", "o=x&p=1"])
def test_a_cursor_whose_position_is_not_one_of_the_list_is_a_400_naming_it(client, debug, position):
    cursor = base64.b64encode(position.encode()).decode()
    error = json_error(client.get("/api/matches/", {"cursor": cursor}), 400, "invalid")
    assert error["fields"] == {"cursor": ["not a cursor this list gave"]}


DEEP = "[" * 1000 + "]" * 1000


@pytest.mark.parametrize("path", ["/api/accounts/", "/api/session/"])
def test_json_nested_a_thousand_deep_is_a_400_for_anybody(client, debug, path):
    error = json_error(post_json(client, path, DEEP), 400, "parse_error")
    assert "nested deeper than 32" in error["message"], error


@pytest.mark.parametrize("path", ["/api/players/", "/api/tournaments/", "/api/ladders/", "/api/leagues/",
                                  "/api/tokens/"])
def test_json_nested_a_thousand_deep_is_a_400_on_every_post(signed_in, debug, path):
    error = json_error(post_json(signed_in, path, DEEP), 400, "parse_error")
    assert "nested deeper than 32" in error["message"], error


def test_json_nested_within_the_limit_is_read(signed_in):
    deepest = '{"name": "x", "kind": "bot", "bot_config": ' + '{"a": ' * 31 + "1" + "}" * 31 + "}"  # 32 levels
    error = json_error(post_json(signed_in, "/api/players/", deepest), 400, "invalid")  # read, refused by its fields
    assert "parse_error" != error["code"] and "bot_kind" in error["fields"], error
    deeper = '{"name": "x", "kind": "bot", "bot_config": ' + '{"a": ' * 32 + "1" + "}" * 32 + "}"  # 33 levels
    assert "nested deeper than 32" in json_error(post_json(signed_in, "/api/players/", deeper), 400, "parse_error")["message"]


def test_the_standings_of_a_tournament_with_no_entrants_are_empty(client, debug):
    from tournaments.services.tournaments import tournament_create

    empty = tournament_create(name="Empty", slug="empty", game="stoppa", table_size=4, format="round_robin")
    answer = client.get(f"/api/tournaments/{empty.pk}/standings/")
    assert answer.status_code == 200 and answer.json()["results"] == [], answer.content[:300]
    assert client.get(f"/tournaments/{empty.pk}/").status_code == 200  # its page, which shows them too


# 415: request bodies are JSON only ----------------------------------------------------------

@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=x", "application/x-www-form-urlencoded",
                                          "text/plain", "application/xml", "", "application/json-seq"])
def test_a_body_that_is_not_json_is_a_415_naming_the_type_the_api_reads(client, debug, content_type):
    for path in ("/api/accounts/", "/api/session/", "/api/players/"):
        answer = client.generic("POST", path, b"username=ada&password=x", CONTENT_TYPE=content_type)
        error = json_error(answer, 415)
        assert "application/json" in error["message"], error


def test_a_multipart_sign_up_is_refused_and_makes_no_account(client, debug):
    answer = client.post("/api/accounts/", {"username": "ada", "password": "correct horse battery"})  # multipart
    assert json_error(answer, 415)["message"].startswith("the API reads JSON request bodies only")
    assert not get_user_model().objects.exists()


def test_a_body_is_refused_even_where_the_view_reads_none(signed_in, debug):
    from tournaments.services.tournaments import tournament_create

    draft = tournament_create(name="Draft", slug="draft", game="stoppa", table_size=4, format="round_robin")
    answer = signed_in.post(f"/api/tournaments/{draft.pk}/cancel/", {"why": "x"})  # multipart, never read
    json_error(answer, 415)


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON"])
def test_json_is_read_whatever_its_parameters(client, content_type):
    answer = client.generic("POST", "/api/accounts/", json.dumps({"username": "ada", "password": "correct horse battery"}),
                            CONTENT_TYPE=content_type)
    assert answer.status_code == 201, answer.content


def test_a_post_without_a_body_needs_no_content_type(signed_in):
    from tournaments.services.tournaments import tournament_create

    draft = tournament_create(name="Draft", slug="draft", game="stoppa", table_size=4, format="round_robin")
    assert signed_in.generic("POST", f"/api/tournaments/{draft.pk}/cancel/", b"", CONTENT_TYPE="").status_code != 415
