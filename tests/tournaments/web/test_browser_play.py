"""The play screen and the replay viewer in a real browser (Debian's Chromium driven by
Playwright, against the live server, as tests/tournaments/web/test_browser.py does): a person
plays a whole online Sette e mezzo match against two built-in bots by clicking the page's
buttons, the page following the seat's event stream and posting to the API, without a reload,
to the result; then the replay viewer steps through a match with the keyboard.

The browser is signed in with a session made by Django's test client (force_login): its cookie
is handed to the browser, as the sign-in page would set it."""

from __future__ import annotations

import pytest
from django.test import Client

from tournaments.models import Match

from ..helpers import bot_players, make_tournament, play_out
from .test_browser import PHONE, chromium, chromium_at_hand, fits  # noqa: F401 (fixtures)
from .test_play import online_table

pytestmark = [pytest.mark.django_db(transaction=True)]  # the live server's thread reads what the test wrote

DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def table(chromium_at_hand):
    """ada's seat at an online Sette e mezzo round robin of three, two hands, 2 minutes a move,
    opened (the bots have moved up to her first turn), and her session's cookie. Made before
    the browser starts: Playwright's event loop then keeps the ORM out of the test's thread."""
    user, match, position = online_table(options={"hands": 2}, slug="browser-night", move_seconds=120)
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value, match, position


def signed_in_context(browser, base: str, session: str, **options):
    context = browser.new_context(**options)
    context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
    return context


def test_a_person_plays_a_whole_online_match_by_clicking_and_sees_the_result(live_server, table, chromium):
    session, match, position = table
    context = signed_in_context(chromium, live_server.url, session, viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    posted, streamed, bodies = [], [], []
    page.on("request", lambda request: (posted if request.method == "POST" else streamed).append(request.url)
            if "/api/" in request.url else None)
    page.on("request", lambda request: bodies.append(request.post_data_json) if request.method == "POST" else None)
    page.goto(f"{live_server.url}/matches/{match.pk}/seats/{position}/play/")
    page.evaluate("window.stillThisPage = true")  # gone if anything reloads the page
    assert page.locator("[data-announce]").text_content() == "Your turn."
    assert "left" in page.locator("[data-deadline]").text_content()  # the clock counts down
    fits(page, PHONE["width"])

    moves, answered = 0, []
    while not page.locator("#result-heading").count():
        drawn = page.locator("[data-state]").get_attribute("data-actions")
        answered.append(int(drawn))
        stand = page.get_by_role("button", name="Stand")
        (stand if stand.count() else page.locator(".choices button").first).click()
        moves += 1
        page.wait_for_function(
            "drawn => document.querySelector('#result-heading') || (document.querySelector('[data-state]')"
            ".getAttribute('data-actions') !== drawn && document.querySelector('.choices button'))", arg=drawn)
        assert moves < 20
    assert moves >= 4  # two hands: a stake and at least one card each

    assert page.evaluate("window.stillThisPage") is True
    assert page.get_by_role("heading", name="Result").is_visible()
    assert page.locator("[data-announce]").text_content().startswith("The match is over: you finished")
    assert page.get_by_role("link", name="Watch the replay").is_visible()
    assert not page.locator("[data-error]").is_visible()
    fits(page, PHONE["width"])
    actions_url = f"{live_server.url}/api/matches/{match.pk}/seats/{position}/actions/"
    assert posted == [actions_url] * moves  # every move went to the API, none to the page
    # Each named the decision it answered: the actions the page showed when it was clicked.
    assert [body["actions"] for body in bodies] == answered
    assert any(url.startswith(f"{live_server.url}/api/matches/{match.pk}/seats/{position}/events/")
               for url in streamed)
    context.close()


def test_an_illegal_post_shows_the_apis_reason(live_server, table, chromium):
    session, match, position = table
    context = signed_in_context(chromium, live_server.url, session, viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/seats/{position}/play/")
    # A button edited to ask for a stake over the limit: the server refuses it (422).
    page.locator(".choices button").first.evaluate("b => b.value = JSON.stringify({type: 'stake', amount: 99})")
    page.locator(".choices button").first.click()
    error = page.get_by_role("alert")
    error.wait_for()
    assert error.text_content().startswith("Refused:") and "stake" in error.text_content()
    assert page.locator(".choices button").count() == 10  # still ada's turn, nothing played
    context.close()


@pytest.fixture
def finished(chromium_at_hand) -> Match:
    tournament = make_tournament(bot_players(3, prefix="replayed"), slug="replayed", table_size=3,
                                 format="round_robin", format_config={}, options={"hands": 1}, ladder_slug=None)
    play_out(tournament)
    return Match.objects.get(round__tournament=tournament)


def test_the_replay_steps_with_the_arrow_keys(live_server, finished, chromium):
    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{finished.pk}/replay/")
    page.evaluate("window.stillThisPage = true")
    steps = page.locator("ol.log li")
    total = steps.count()
    now = page.locator("[data-step-number]")
    said = page.locator("[data-step-said]")
    assert now.text_content() == f"Step 1 of {total}"

    page.keyboard.press("ArrowRight")
    assert now.text_content() == f"Step 2 of {total}"
    assert said.text_content() == steps.nth(1).text_content().strip()
    assert steps.nth(1).get_attribute("aria-current") == "step" and steps.nth(0).get_attribute("aria-current") is None
    assert "step=2" in page.url

    page.keyboard.press("End")
    assert now.text_content() == f"Step {total} of {total}"
    last_table = page.locator("[data-table]").inner_text()
    page.keyboard.press("ArrowLeft")
    assert now.text_content() == f"Step {total - 1} of {total}"
    page.keyboard.press("Home")
    assert now.text_content() == f"Step 1 of {total}"
    assert page.locator("[data-table]").inner_text() != last_table  # the table is drawn again
    page.get_by_role("button", name="Forward").click()
    assert now.text_content() == f"Step 2 of {total}"
    assert page.evaluate("window.stillThisPage") is True  # all of it without a reload

    page.set_viewport_size({"width": PHONE["width"], "height": PHONE["height"]})
    page.goto(f"{live_server.url}/matches/{finished.pk}/replay/?open=1&step=last")
    fits(page, PHONE["width"])
    context.close()


@pytest.fixture
def hurried(chromium_at_hand):
    """ada's seat at an online match with the shortest clock, 5 s a move, opened."""
    user, match, position = online_table(options={"hands": 1}, slug="hurried", move_seconds=5)
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value, match, position


def test_when_the_players_time_is_up_the_buttons_no_longer_offer_the_move(live_server, hurried, chromium):
    session, match, position = hurried
    context = signed_in_context(chromium, live_server.url, session, viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/seats/{position}/play/")
    # (The server draws the buttons enabled: it is her turn until the clock check applies the
    # timeout. On a loaded machine the 5 s may be gone by the time the page is drawn.)
    page.wait_for_function("() => document.querySelector('[data-deadline]').textContent.includes('up')", timeout=15_000)
    buttons = page.locator(".choices button")
    assert buttons.count() and all(buttons.nth(i).is_disabled() for i in range(buttons.count()))
    context.close()

