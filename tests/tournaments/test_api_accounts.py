"""Accounts (docs/api.md, "Accounts"): a person signs up, signs in and out with the browser's
session (CSRF-checked), and makes a token; every refusal names the field or rule."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from .helpers import fields

pytestmark = [pytest.mark.django_db]

GOOD = "correct horse battery staple"


def sign_up(client: APIClient, **body):
    return client.post("/api/accounts/", {"username": "ada", "password": GOOD, **body}, format="json")


def test_a_person_signs_up_signs_in_makes_a_token_and_signs_out():
    browser = APIClient(enforce_csrf_checks=True)
    made = sign_up(browser, email="ada@example.org")
    assert made.status_code == 201
    assert made.json()["username"] == "ada" and "password" not in made.json()
    assert get_user_model().objects.get(username="ada").check_password(GOOD)
    # The session: a CSRF cookie first, sent back with the sign-in.
    assert browser.get("/api/session/").json() == {"username": None}
    csrf = browser.cookies["csrftoken"].value
    assert browser.post("/api/session/", {"username": "ada", "password": GOOD}, format="json").status_code == 403
    signed = browser.post("/api/session/", {"username": "ada", "password": GOOD}, format="json", HTTP_X_CSRFTOKEN=csrf)
    assert signed.status_code == 200 and signed.json() == {"username": "ada"}
    csrf = browser.cookies["csrftoken"].value  # rotated at sign-in
    me = browser.get("/api/accounts/").json()
    assert (me["username"], me["email"], me["is_staff"]) == ("ada", "ada@example.org", False)
    token = browser.post("/api/tokens/", {"name": "laptop", "scopes": ["read"]}, format="json", HTTP_X_CSRFTOKEN=csrf)
    assert token.status_code == 201 and token.json()["token"].startswith("mzt_")
    assert browser.delete("/api/session/", HTTP_X_CSRFTOKEN=csrf).json() == {"username": None}
    assert browser.get("/api/accounts/").status_code in (401, 403)


def test_a_program_gets_its_first_token_with_the_username_and_password():
    assert sign_up(APIClient()).status_code == 201
    program = APIClient()
    program.credentials(HTTP_AUTHORIZATION="Basic " + __import__("base64").b64encode(f"ada:{GOOD}".encode()).decode())
    answer = program.post("/api/tokens/", {"name": "bot", "scopes": ["read", "play"]}, format="json")
    assert answer.status_code == 201
    bot = APIClient()
    bot.credentials(HTTP_AUTHORIZATION=f"Bearer {answer.json()['token']}")
    assert bot.get("/api/accounts/").json()["username"] == "ada"


def test_a_token_asking_for_a_token_is_told_to_use_the_password_instead():
    """The token endpoints take the account's password or a session, never a token: a token
    sent there is told so (not "credentials were not provided": they were), with the Basic
    challenge to answer."""
    assert sign_up(APIClient()).status_code == 201
    program = APIClient()
    program.credentials(HTTP_AUTHORIZATION="Basic " + __import__("base64").b64encode(f"ada:{GOOD}".encode()).decode())
    secret = program.post("/api/tokens/", {"name": "bot", "scopes": ["read"]}, format="json").json()["token"]
    for token in (secret, "mzt_unknown_token"):
        bot = APIClient()
        bot.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        for answer in (bot.post("/api/tokens/", {"name": "more", "scopes": ["read"]}, format="json"),
                       bot.get("/api/tokens/")):
            assert answer.status_code == 401
            error = answer.json()["error"]
            assert error["code"] == "authentication_failed"
            assert "username and password (HTTP Basic" in error["message"] and "never with a token" in error["message"]
            assert answer["WWW-Authenticate"].startswith("Basic")
    # Nothing sent at all: DRF's own words, which are true then.
    assert "not provided" in APIClient().get("/api/tokens/").json()["error"]["message"]


@pytest.mark.parametrize(("body", "field", "says"), [
    ({"password": "12345678"}, "password", "too common"),
    ({"password": "short"}, "password", "too short"),
    ({"username": "adalovelace", "password": "adalovelace1"}, "password", "too similar"),
    ({"username": "ada lovelace"}, "username", "letters, numbers"),
    ({"username": "a" * 65}, "username", "64"),
    ({"username": ""}, "username", ""),
    ({"email": "not-an-address"}, "email", ""),
])
def test_a_bad_sign_up_is_refused_naming_the_field(body, field, says):
    answer = sign_up(APIClient(), **body)
    assert answer.status_code == 400
    assert field in fields(answer) and says in " ".join(fields(answer)[field]).lower()
    assert not get_user_model().objects.exists()


def test_a_username_is_taken_whatever_its_case():
    assert sign_up(APIClient()).status_code == 201
    again = sign_up(APIClient(), username="ADA")
    assert again.status_code == 400 and "taken" in fields(again)["username"][0]


def test_a_wrong_password_and_an_unknown_user_get_the_same_answer():
    sign_up(APIClient())
    answers = [APIClient().post("/api/session/", {"username": name, "password": "nope-nope-nope"}, format="json")
               for name in ("ada", "nobody")]
    assert [a.status_code for a in answers] == [400, 400]
    assert answers[0].json() == answers[1].json()
    assert fields(answers[0]) == {"password": ["wrong username or password"]}


def test_sign_ups_and_sign_in_attempts_have_their_own_budgets(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "accounts": "2/hour", "sign_in": "3/hour"}}
    here = APIClient(REMOTE_ADDR="198.51.100.7")
    assert [sign_up(here, username=f"u{i}").status_code for i in range(3)] == [201, 201, 429]
    assert "Retry-After" in sign_up(here, username="u9")
    assert sign_up(APIClient(REMOTE_ADDR="198.51.100.8"), username="u3").status_code == 201  # another address
    tries = [here.post("/api/session/", {"username": "u0", "password": "guess"}, format="json").status_code
             for _ in range(4)]
    assert tries == [400, 400, 400, 429]
    assert here.get("/api/session/").status_code == 200  # reading who is signed in is not an attempt
