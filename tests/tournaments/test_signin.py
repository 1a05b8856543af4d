"""Budgets on presenting a password (tournaments/signin.py, docs/api.md "Limits"): every way
to sign in with a username and password (HTTP Basic on the API, POST /api/session/, the admin's
login, the pages' form) is counted per address and per account before the password is checked;
beyond either, 429 with Retry-After, the right password too. Tokens and open sessions present
no password and are never refused by it."""

from __future__ import annotations

import base64

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.backends import ModelBackend
from django.test import Client
from rest_framework.test import APIClient

from tournaments import signin
from tournaments.services.accounts import account_create
from tournaments.services.tokens import token_create

from .helpers import error

pytestmark = [pytest.mark.django_db, pytest.mark.services]  # leg 2: counted in Redis (CACHE_URL)

GOOD = "correct horse battery staple"
TOKEN = {"name": "laptop", "scopes": ["read"]}


@pytest.fixture(autouse=True)
def budgets(settings, monkeypatch):
    """The default rates (10 a minute per address, 20 an hour per account), with the clock held
    in the middle of a window so that no window ends during a test; quick password hashes."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "sign_in": "10/minute", "sign_in_account": "20/hour"}}
    monkeypatch.setattr(signin, "clock", lambda: 1_800_000_000.0 + 1830)  # 30 min 30 s into an hour


@pytest.fixture
def ada(db):
    return account_create(username="ada", password=GOOD)


@pytest.fixture
def checked(monkeypatch) -> list[str]:
    """The usernames whose password was checked (Django's ModelBackend, which hashes it)."""
    seen: list[str] = []
    original = ModelBackend.authenticate

    def authenticate_(self, request, username=None, password=None, **kwargs):
        seen.append(username)
        return original(self, request, username, password, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", authenticate_)
    return seen


def basic(password: str, username: str = "ada", address: str = "203.0.113.5"):
    client = APIClient(REMOTE_ADDR=address)
    credentials = base64.b64encode(f"{username}:{password}".encode()).decode()
    return client.post("/api/tokens/", TOKEN, HTTP_AUTHORIZATION=f"Basic {credentials}")


def assert_refused(answer, by: str) -> None:
    """429 in the API's shape, with Retry-After in whole seconds, saying which budget."""
    assert answer.status_code == 429, answer.content[:300]
    assert answer["Content-Type"] == "application/json"
    assert 1 <= int(answer["Retry-After"]) <= (60 if by == "address" else 3600)
    refusal = error(answer)
    assert refusal["code"] == "throttled"
    assert f"Too many sign-in attempts {'from this address' if by == 'address' else 'for this account'}" \
        in refusal["message"], refusal


def test_forty_basic_guesses_from_one_address_meet_429_and_the_right_password_too(ada, checked):
    answers = [basic(f"guess {i}") for i in range(40)]
    assert [a.status_code for a in answers] == [401] * 10 + [429] * 30
    assert_refused(answers[-1], "address")
    assert int(answers[-1]["Retry-After"]) == 30  # the minute's window ends in 30 s
    assert_refused(basic(GOOD), "address")  # inside the window: the right password is refused too
    assert len(checked) == 10  # no password hashed beyond the budget
    assert basic(GOOD, address="198.51.100.1").status_code == 201  # the owner, elsewhere, within the account's


def test_guesses_at_one_account_from_many_addresses_meet_its_budget(ada, checked):
    answers = [basic(f"guess {i}", address=f"198.51.100.{i}") for i in range(40)]
    assert [a.status_code for a in answers] == [401] * 20 + [429] * 20
    assert_refused(answers[-1], "account")
    assert int(answers[-1]["Retry-After"]) == 1770  # the hour's window ends in 29 min 30 s
    assert_refused(basic(GOOD, address="192.0.2.9"), "account")  # the owner's password too, from anywhere
    assert_refused(basic(GOOD, username="ADA", address="192.0.2.10"), "account")  # one account, whatever the case
    assert len(checked) == 20
    account_create(username="bea", password=GOOD)
    assert basic(GOOD, username="bea", address="198.51.100.39").status_code == 201  # another account: its own


def test_a_spent_account_budget_never_stops_its_tokens_nor_its_open_sessions(ada):
    _, secret = token_create(user=ada, name="bot", scopes=["read"])
    browser = Client()
    browser.force_login(ada)
    for i in range(25):
        basic(f"guess {i}", address=f"198.51.100.{i}")
    assert_refused(basic(GOOD, address="192.0.2.9"), "account")
    program = APIClient(REMOTE_ADDR="192.0.2.9", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert program.get("/api/accounts/").json()["username"] == "ada"  # tokens present no password
    assert browser.get("/api/session/").json() == {"username": "ada"}  # nor does a signed-in session


def test_an_address_over_its_budget_spends_nothing_of_the_accounts(ada):
    for i in range(40):
        basic(f"guess {i}")  # 10 counted against ada, 30 refused by the address before
    answers = [basic(f"again {i}", address=f"198.51.100.{i}") for i in range(11)]
    assert [a.status_code for a in answers] == [401] * 10 + [429]  # 10 + 10 = the account's 20


def session_sign_in(username: str, password: str, address: str):
    return APIClient(REMOTE_ADDR=address).post("/api/session/", {"username": username, "password": password})


def test_the_sessions_sign_in_has_the_same_budgets(ada, checked):
    answers = [session_sign_in("ada", f"guess {i}", "203.0.113.5") for i in range(12)]
    assert [a.status_code for a in answers] == [400] * 10 + [429] * 2
    assert_refused(answers[-1], "address")
    assert_refused(session_sign_in("ada", GOOD, "203.0.113.5"), "address")
    others = [session_sign_in("ada", f"guess {i}", f"198.51.100.{i}") for i in range(11)]
    assert [a.status_code for a in others] == [400] * 10 + [429]  # 20 for the account in all
    assert_refused(others[-1], "account")
    assert len(checked) == 20
    assert basic(GOOD, address="192.0.2.1").status_code == 429  # one budget, whatever the path


def admin_sign_in(client: Client, password: str, username: str = "ada"):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def test_forty_admin_login_guesses_meet_a_429_page_and_the_right_password_too(ada, checked):
    ada.is_staff = True
    ada.save(update_fields=["is_staff"])
    here = Client(REMOTE_ADDR="203.0.113.5")
    answers = [admin_sign_in(here, f"guess {i}") for i in range(40)]
    assert [a.status_code for a in answers] == [200] * 10 + [429] * 30  # 200: the form again, with its error
    refused = admin_sign_in(here, GOOD)
    assert refused.status_code == 429 and refused["Retry-After"] == "30"
    assert refused["Content-Type"].startswith("text/html")
    assert "Too many attempts from here: try again in 1 minute." in refused.content.decode()
    assert "_auth_user_id" not in here.session
    assert len(checked) == 10
    elsewhere = Client(REMOTE_ADDR="198.51.100.1")
    assert admin_sign_in(elsewhere, GOOD).status_code == 302 and "_auth_user_id" in elsewhere.session


def test_the_admin_login_counts_against_the_account_from_any_address(ada):
    answers = [admin_sign_in(Client(REMOTE_ADDR=f"198.51.100.{i}"), f"guess {i}") for i in range(21)]
    assert [a.status_code for a in answers] == [200] * 20 + [429]
    assert "Too many attempts to sign in to this account: try again in 30 minutes." in answers[-1].content.decode()


def test_the_pages_sign_in_form_says_which_budget_refused(ada):
    for i in range(20):
        Client(REMOTE_ADDR=f"198.51.100.{i}").post("/account/sign-in/", {"username": "ada", "password": f"g{i}"})
    refused = Client(REMOTE_ADDR="192.0.2.1").post("/account/sign-in/", {"username": "ada", "password": GOOD})
    assert refused.status_code == 429 and refused["Retry-After"] == "1770"
    assert "Too many attempts to sign in to this account: try again in 30 minutes." in refused.content.decode()
    assert 'name="password"' in refused.content.decode()  # the form, to try again later


def test_an_attempt_without_a_request_counts_against_the_account():
    for _ in range(20):
        assert authenticate(None, username="nobody", password="guess") is None
    with pytest.raises(signin.SignInRefused) as refused:
        authenticate(None, username="nobody", password="guess")
    assert refused.value.by == "account"


def test_credentials_without_a_password_are_left_to_other_backends(ada):
    assert signin.SignInBudget().authenticate(None, username="ada") is None
    assert signin.SignInBudget().authenticate(None, token="x") is None
    assert authenticate(None, username="ada", password=GOOD) == ada  # ModelBackend still signs in


def test_the_budget_backend_comes_first_and_sessions_keep_naming_modelbackend(settings, ada):
    assert settings.AUTHENTICATION_BACKENDS == ["tournaments.signin.SignInBudget",
                                                "django.contrib.auth.backends.ModelBackend"]
    browser = Client()
    browser.post("/account/sign-in/", {"username": "ada", "password": GOOD})
    assert browser.session["_auth_user_backend"] == "django.contrib.auth.backends.ModelBackend"
