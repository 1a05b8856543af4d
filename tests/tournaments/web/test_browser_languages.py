"""The language switch in a real browser (Debian's Chromium driven by Playwright, against the live
server, as test_browser.py does): it comes back to the page as the reader left it, in the other
language: the replay at the step the reader had stepped to, and after a refused form, the page
the form was on (the form's own address answers only a POST)."""

from __future__ import annotations

import pytest

from .test_browser import DESKTOP, chromium, chromium_at_hand  # noqa: F401 (fixtures)
from .test_browser_play import finished  # noqa: F401 (a fixture: a finished match of three bots)
from .test_languages import too_small

pytestmark = [pytest.mark.django_db(transaction=True)]  # the live server's thread reads what the test wrote


def test_the_replay_keeps_its_step_across_the_language_switch(live_server, finished, chromium):
    context = chromium.new_context(viewport=DESKTOP, locale="en-GB")
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{finished.pk}/replay/?seat=1")
    total = page.locator("ol.log li").count()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.locator("[data-step-number]").text_content() == f"Step 4 of {total}"
    page.get_by_role("button", name="Italiano").click()
    page.wait_for_url("**/replay/?seat=1&step=4*")
    assert page.locator("html").get_attribute("lang") == "it"
    assert page.locator("[data-step-number]").text_content() == f"Passo 4 di {total}"
    assert page.locator("ol.log li[aria-current=step]").get_attribute("id") == "step-4"
    context.close()


@pytest.fixture
def small(chromium_at_hand):
    """olga's Stoppa round robin with one entrant (starting it is refused), and her session."""
    client, tournament = too_small()
    return client.cookies["sessionid"].value, tournament


def test_after_a_refused_form_the_switch_shows_the_forms_page_not_a_blank_405(live_server, small, chromium):
    session, tournament = small
    context = chromium.new_context(viewport=DESKTOP, locale="en-GB")
    context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/organise/{tournament.pk}/")
    page.get_by_role("button", name="Start the tournament").click()
    page.wait_for_url(f"**/organise/{tournament.pk}/start/")
    assert "cannot fill a table of 4" in page.locator("main").inner_text()
    with page.expect_navigation() as switched:
        page.get_by_role("button", name="Italiano").click()
    assert switched.value.status == 200
    assert page.url == f"{live_server.url}/organise/{tournament.pk}/"
    assert page.locator("html").get_attribute("lang") == "it"
    assert page.get_by_role("button", name="Avvia il torneo").is_visible()
    context.close()
