"""Signing up, in and out on the pages, and API tokens: the API's rules (services.accounts,
services.tokens) and budgets (API_ACCOUNTS_RATE, API_SIGN_IN_RATE, counted together with the
API's own requests), and a ``next`` that never leaves the site."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from tournaments.models import ApiToken
from tournaments.services.accounts import account_create
from tournaments.services.tokens import token_create, token_find

from .pages import body, text

pytestmark = pytest.mark.django_db

GOOD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # the tests sign in often


@pytest.fixture
def ada(db):
    return account_create(username="ada", password=GOOD)


@pytest.fixture
def rates(settings):
    def set_rates(**rates):
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates}}

    return set_rates


def signed_in_as(client: Client) -> str | None:
    user = client.get("/api/session/").json()["username"]
    return user


def error_of(page: str, field: str) -> str:
    """The words of the error shown next to a field (its id_<field>_error list)."""
    start = page.index(f'id="id_{field}_error"')
    return text(page[start:page.index("</ul>", start)].split(">", 1)[1])


# --- signing up ---------------------------------------------------------------------------------

def test_a_person_signs_up_and_is_signed_in_and_sent_where_they_were_going(client):
    answer = client.post("/account/sign-up/", {"username": "olga", "password": GOOD, "password_again": GOOD,
                                                "next": "/tournaments/"})
    assert answer.status_code == 302 and answer["Location"] == "/tournaments/"
    assert get_user_model().objects.get(username="olga").check_password(GOOD)
    assert signed_in_as(client) == "olga"


def test_without_next_a_new_account_lands_on_the_organisers_screen(client):
    answer = client.post("/account/sign-up/", {"username": "olga", "password": GOOD, "password_again": GOOD})
    assert answer["Location"] == "/organise/"


@pytest.mark.parametrize("form, field, says", [
    ({"username": "olga", "password": "12345678", "password_again": "12345678"}, "password", "entirely numeric"),
    ({"username": "olga", "password": "short", "password_again": "short"}, "password", "too short"),
    ({"username": "ol ga", "password": GOOD, "password_again": GOOD}, "username", "letters, numbers"),
    ({"username": "ADA", "password": GOOD, "password_again": GOOD}, "username", "taken"),
    ({"username": "olga", "password": GOOD, "password_again": GOOD + "!"}, "password_again", "differ"),
    ({"username": "olga", "email": "not-an-address", "password": GOOD, "password_again": GOOD}, "email", "valid email"),
    ({"username": "", "password": GOOD, "password_again": GOOD}, "username", "required"),
])
def test_a_bad_sign_up_is_refused_with_the_reason_next_to_its_field(client, ada, form, field, says):
    answer = client.post("/account/sign-up/", form)
    assert answer.status_code == 400
    page = answer.content.decode()
    assert says in error_of(page, field).lower()
    assert f'aria-describedby="id_{field}_helptext id_{field}_error"' in page or (
        f'aria-describedby="id_{field}_error"' in page)
    assert 'aria-invalid="true"' in page
    assert get_user_model().objects.count() == 1 and signed_in_as(client) is None


def test_sign_ups_count_against_the_apis_budget_per_address(client, rates):
    rates(accounts="2/hour")
    assert APIClient(REMOTE_ADDR="127.0.0.1").post("/api/accounts/", {"username": "u1", "password": GOOD},
                                                   format="json").status_code == 201
    ok = client.post("/account/sign-up/", {"username": "u2", "password": GOOD, "password_again": GOOD})
    assert ok.status_code == 302
    client.post("/account/sign-out/")
    refused = client.post("/account/sign-up/", {"username": "u3", "password": GOOD, "password_again": GOOD})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many attempts from here" in text(refused.content.decode())
    assert not get_user_model().objects.filter(username="u3").exists()
    assert client.get("/account/sign-up/").status_code == 200  # reading the form is not an attempt


# --- signing in and out -----------------------------------------------------------------------------

def test_a_person_signs_in_and_goes_back_to_the_page_they_came_from(client, ada):
    page = body(client.get("/tournaments/"))
    assert 'href="/account/sign-in/?next=/tournaments/"' in page
    answer = client.post("/account/sign-in/", {"username": "ada", "password": GOOD, "next": "/tournaments/"})
    assert answer.status_code == 302 and answer["Location"] == "/tournaments/"
    page = body(client.get("/tournaments/"))
    assert "Sign out" in text(page) and ">ada<" in page and 'href="/organise/"' in page


def test_a_wrong_password_is_refused_and_nobody_is_signed_in(client, ada):
    answer = client.post("/account/sign-in/", {"username": "ada", "password": "wrong horse"})
    assert answer.status_code == 400
    assert "Please enter a correct username and password" in text(answer.content.decode())
    assert signed_in_as(client) is None


@pytest.mark.parametrize("elsewhere", ["https://evil.example/", "//evil.example/path", "http://evil.example"])
def test_signing_in_never_sends_anyone_to_another_site(client, ada, elsewhere):
    answer = client.post("/account/sign-in/", {"username": "ada", "password": GOOD, "next": elsewhere})
    assert answer.status_code == 302 and answer["Location"] == "/organise/"
    client.post("/account/sign-out/")
    answer = client.post("/account/sign-up/", {"username": "bea", "password": GOOD, "password_again": GOOD,
                                                "next": elsewhere})
    assert answer["Location"] == "/organise/"


def test_sign_in_attempts_count_against_the_apis_budget_per_address(client, ada, rates):
    rates(sign_in="3/hour")
    api = APIClient(REMOTE_ADDR="127.0.0.1")
    assert api.post("/api/session/", {"username": "ada", "password": "guess"}, format="json").status_code == 400
    tries = [client.post("/account/sign-in/", {"username": "ada", "password": "guess"}).status_code for _ in range(2)]
    assert tries == [400, 400]
    refused = client.post("/account/sign-in/", {"username": "ada", "password": GOOD})  # even the right one
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many attempts from here" in text(refused.content.decode())
    assert signed_in_as(client) is None
    assert Client(REMOTE_ADDR="198.51.100.9").post(  # another address has its own budget
        "/account/sign-in/", {"username": "ada", "password": GOOD}).status_code == 302


def test_signing_out_takes_a_post(client, ada):
    client.force_login(ada)
    assert client.get("/account/sign-out/").status_code == 405
    assert signed_in_as(client) == "ada"
    answer = client.post("/account/sign-out/")
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert signed_in_as(client) is None
    assert "You are signed out." in text(body(client.get("/")))


def test_signing_in_and_out_need_the_csrf_token(ada):
    browser = Client(enforce_csrf_checks=True)
    assert browser.post("/account/sign-in/", {"username": "ada", "password": GOOD}).status_code == 403
    assert signed_in_as(browser) is None
    browser.force_login(ada)
    assert browser.post("/account/sign-out/").status_code == 403
    assert signed_in_as(browser) == "ada"


def test_the_sign_in_form_labels_every_field(client):
    page = body(client.get("/account/sign-in/"))
    assert '<label for="id_username">' in page and '<label for="id_password">' in page
    assert 'autocomplete="current-password"' in page


# --- API tokens ------------------------------------------------------------------------------------

def test_a_new_token_is_shown_once_and_works(client, ada):
    client.force_login(ada)
    answer = client.post("/account/tokens/", {"name": "scripts", "scopes": ["read", "organise"]})
    assert answer.status_code == 200 and answer["Cache-Control"].startswith("max-age=0")
    page = answer.content.decode()
    secret = page.split('id="made-token"', 1)[1].split('value="', 1)[1].split('"', 1)[0]
    row = token_find(secret)
    assert row.user == ada and row.scopes == ["read", "organise"] and row.name == "scripts"
    again = body(client.get("/account/tokens/"))
    assert secret not in again and f"mzt_{row.prefix}_" in again  # listed by its start only


def test_a_bad_token_request_names_the_field(client, ada):
    client.force_login(ada)
    answer = client.post("/account/tokens/", {"name": "", "scopes": []})
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "required" in error_of(page, "name").lower() and "required" in error_of(page, "scopes").lower()
    assert not ApiToken.objects.exists()


def test_a_token_is_revoked_by_its_owner_only(client, ada):
    row, secret = token_create(user=ada, name="old", scopes=["read"])
    other = account_create(username="bea", password=GOOD)
    client.force_login(other)
    assert client.post(f"/account/tokens/{row.pk}/revoke/").status_code == 404
    client.force_login(ada)
    assert client.post(f"/account/tokens/{row.pk}/revoke/").status_code == 302
    assert token_find(secret) is None


def test_the_tokens_page_is_for_signed_in_people(client):
    answer = client.get("/account/tokens/")
    assert answer.status_code == 302 and answer["Location"] == "/account/sign-in/?next=/account/tokens/"
