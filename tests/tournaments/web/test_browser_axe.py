"""Accessibility, checked by axe-core (Deque's rules engine, vendored in ./axe/) in a real browser
(Debian's Chromium driven by Playwright, against the live server, as test_browser.py does): every
page `make screenshots` photographs, in English and in Italian, signed in where the screenshots
are, and a page showing a message after an organiser's action; no page may have a critical or
serious violation, nor two landmarks of one kind with the same name.

Skipped, saying why, where Chromium or the playwright package is missing, except under CI=true."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tournaments.models import Tournament
from tournaments.web.management.commands import screenshots

from .test_browser import DESKTOP, chromium, chromium_at_hand  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.django_db(transaction=True)]  # the live server's thread reads what the test wrote

AXE = (Path(__file__).parent / "axe" / "axe.min.js").read_text()
BLOCKING = ("critical", "serious")
# A script run by Playwright's evaluate is not the page's: the pages' Content-Security-Policy
# (script-src 'self') does not apply to it, so axe runs as the page is served, policy and all.
RUN = """async () => {
  const found = await axe.run(document, {resultTypes: ["violations"]});
  return found.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                     nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)}));
}"""


@pytest.fixture
def club(chromium_at_hand, settings):
    """The sample club of `make screenshots` (its pages: name, path, language) and a session
    of its organiser, for the pages photographed signed in."""
    settings.MATCH_FLUSH_SECONDS = 0
    pages = screenshots.club()
    upcoming = Tournament.objects.get(slug="spacca-open")
    return pages, screenshots._session(screenshots.ORGANISER), upcoming


def test_no_page_has_a_serious_accessibility_violation_in_either_language(live_server, club, chromium):
    pages, session, upcoming = club
    paths: list[tuple[bool, str]] = []  # each page once (signed in or not, as photographed), in both languages
    for name, path, _ in pages:
        if (name.startswith(screenshots.SIGNED_IN), path) not in paths:
            paths.append((name.startswith(screenshots.SIGNED_IN), path))
    assert {path for _, path in paths} == {path for _, path, _ in pages}
    found: list[dict] = []
    for language in ("en", "it"):
        context = chromium.new_context(viewport=DESKTOP, locale=language)
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}])
        page = context.new_page()

        # A message after an organiser's action ("… is entered."), and a form refused (its errors).
        page.goto(f"{live_server.url}/organise/{upcoming.pk}/")
        entering = page.locator("form[action$='/entries/bot/']")
        entering.locator("input[name='bot-name']").fill(f"axe-{language}")
        entering.locator("button[type=submit]").click()
        page.locator(".messages .message").wait_for()
        found += checked(page, language, "a message")
        entering = page.locator("form[action$='/entries/bot/']")
        entering.locator("input[name='bot-name']").fill("not a handle")
        entering.locator("button[type=submit]").click()
        page.locator("[aria-invalid=true]").first.wait_for()
        found += checked(page, language, "a refused form")

        signed_in = True
        for needs_session, path in paths:
            if signed_in and not needs_session:  # the public pages as a visitor, as photographed
                context.clear_cookies()
                signed_in = False
            page.goto(live_server.url + path, wait_until="load")
            found += checked(page, language, path)
        context.close()
    said = "\n".join(f"{f['where']}: {f['impact']} {f['id']} ({f['help']}) at {f['nodes']}" for f in found)
    assert not [f for f in found if f["impact"] in BLOCKING], said
    assert not [f for f in found if f["id"] == "landmark-unique"], said  # no two regions of one name


def checked(page, language: str, where: str) -> list[dict]:
    """axe's violations on the page as it stands, each saying where."""
    page.evaluate(AXE)
    return [{**v, "where": f"{language} {where}"} for v in page.evaluate(RUN)]
