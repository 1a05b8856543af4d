"""A visitor's journey in a real browser (Debian's Chromium driven by Playwright, against the
live server): the home page, a leaderboard, a player with the chart of its rating, a
tournament's standings and bracket, a match; once in English on a desktop, once in Italian on
a 360 px phone, where no page may be wider than the screen.

Skipped, saying why, where Chromium (/usr/bin/chromium) or the playwright package is missing,
except under CI=true, where they fail instead: CI installs both (.ci/run), as it runs the
PostgreSQL leg (scripts/test-services follows the same rule)."""

from __future__ import annotations

import os

import pytest

from tournaments.models import Tournament
from tournaments.web import browser

from ..helpers import bot_players, make_tournament, play_out
from .playing import play_some

pytestmark = [pytest.mark.django_db(transaction=True)]  # the live server's thread reads what the test wrote

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 900}
FELT = "rgb(20, 83, 45)"  # the header's colour: the stylesheet was served and applied


@pytest.fixture
def chromium_at_hand():
    """Skip (or, under CI=true, fail) at once when no browser can be launched here."""
    why = browser.missing()
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: the browser tests are required, but {why}")
        pytest.skip(f"browser tests: {why}")


@pytest.fixture
def cup(chromium_at_hand) -> Tournament:
    """A finished Piazza single elimination of six bots, rated on its ladder: every page of the
    journey has something to show."""
    tournament = make_tournament(bot_players(6, prefix="journey"), slug="journey-cup", game="piazza", table_size=2,
                                 format="single_elimination", format_config={}, options={},
                                 ladder_slug="journey-ladder")
    play_out(tournament)
    return tournament


class Watched:
    """A browser whose every context reports what its pages' Content-Security-Policy refused
    (Chromium logs each refusal on the console: "Refused to ... because it violates the
    following Content Security Policy directive")."""

    def __init__(self, launched) -> None:
        self.browser = launched
        self.violations: list[str] = []

    def new_context(self, **options):
        context = self.browser.new_context(**options)
        context.on("console", lambda message: self._note(message.text, message.page))
        return context

    def _note(self, text: str, page) -> None:
        if "Content Security Policy" in text:
            self.violations.append(f"{page.url if page else '?'}: {text}")

    def __getattr__(self, name):
        return getattr(self.browser, name)


@pytest.fixture
def chromium(chromium_at_hand):
    """A headless Chromium. A test asks for it after its data (Playwright's sync API runs an
    event loop in this thread, where Django's ORM then refuses to run). Every test that uses it
    fails if a page broke the site's Content-Security-Policy."""
    with browser.sync_playwright() as playwright:
        launched = Watched(browser.launch(playwright))
        yield launched
        launched.close()
        assert not launched.violations, "\n".join(launched.violations)


def fits(page, width: int) -> None:
    scrolled = page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= width, f"{page.url} is {scrolled}px wide on a {width}px screen"


def journey(page, base: str, cup_name: str, words: dict[str, str], width: int) -> None:
    """Home, the leaderboard of the top players' first ladder, its leader, the tournament they
    played, a table of its bracket and its replay, stepped with the arrow key: checking at each
    step what the visitor came for."""
    page.goto(base + "/")
    assert page.evaluate("getComputedStyle(document.querySelector('header.site')).backgroundColor") == FELT
    assert page.get_by_role("heading", name=words["top"]).is_visible()
    fits(page, width)

    page.locator("#top ~ .panel h3 a").first.click()  # the ladder of the top players' panel
    page.wait_for_url("**/ladders/*/")
    assert page.get_by_role("button", name=words["search"]).is_visible()
    fits(page, width)

    page.locator("table.leaderboard tbody tr").first.get_by_role("link").click()  # the leader
    page.wait_for_url("**/players/*/")
    chart = page.locator("figure.chart svg").first
    assert chart.is_visible() and chart.get_attribute("role") == "img"
    assert words["rating of"] in chart.locator("title").text_content()
    fits(page, width)

    page.locator("section[aria-labelledby=entered]").get_by_role("link", name=cup_name).click()
    page.wait_for_url("**/tournaments/*/")
    assert page.get_by_role("heading", name=words["standings"]).is_visible()
    assert page.locator("table.standings tbody tr").count() == 6
    assert page.get_by_text(words["champion"], exact=True).is_visible()
    assert page.locator(".bracket svg").is_visible()
    fits(page, width)

    page.locator(".bracket svg a").first.click()  # a table of the bracket
    page.wait_for_url("**/matches/*/")
    assert page.get_by_role("columnheader", name=words["score"]).is_visible()  # finished: its result shows
    fits(page, width)
    match = page.url

    page.get_by_role("link", name=words["replay"]).click()  # and how it was played
    page.wait_for_url("**/replay/**")
    now = page.locator("[data-step-number]")
    first = now.inner_text()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(before) => document.querySelector('[data-step-number]').innerText !== before", arg=first)
    assert now.inner_text().startswith(words["step"])
    fits(page, width)
    page.goto(match)  # where the language switch is tried next


ENGLISH = {"top": "Top players", "search": "Search", "rating of": "Rating of", "standings": "Standings",
           "champion": "champion", "score": "Score", "replay": "Watch the replay", "step": "Step 2 of"}
ITALIAN = {"top": "I migliori giocatori", "search": "Cerca", "rating of": "Punteggio di", "standings": "Classifica",
           "champion": "campione", "score": "Punti", "replay": "Guarda il replay", "step": "Passo 2 di"}


def test_a_visitors_journey_in_english_on_a_desktop_then_switching_to_italian(live_server, cup, chromium):
    context = chromium.new_context(viewport=DESKTOP, locale="en-GB")
    page = context.new_page()
    journey(page, live_server.url, cup.name, ENGLISH, DESKTOP["width"])
    page.get_by_role("button", name="Italiano").click()  # the language switch: set_language, a cookie
    page.wait_for_load_state()
    assert "/matches/" in page.url and page.locator("html").get_attribute("lang") == "it"
    assert page.get_by_role("link", name="Classifiche").is_visible()
    context.close()


def test_a_visitors_journey_in_italian_on_a_phone_fits_the_screen(live_server, cup, chromium):
    context = chromium.new_context(viewport=PHONE, locale="it-IT", is_mobile=True, has_touch=True)
    page = context.new_page()
    journey(page, live_server.url, cup.name, ITALIAN, PHONE["width"])
    for path in ("/ladders/", "/tournaments/", f"/tournaments/{cup.pk}/rounds/1/",
                 f"/tournaments/{cup.pk}/rounds/1/pairings/", "/players/999999/"):
        page.goto(live_server.url + path)
        fits(page, PHONE["width"])
    context.close()


@pytest.fixture
def live(chromium_at_hand) -> Tournament:
    """A Swiss being played: round 1 over, round 2 half played."""
    tournament = make_tournament(bot_players(8, prefix="poll"), slug="poll-swiss", ladder_slug=None)
    play_some(tournament, 3)
    return tournament


def test_a_live_rounds_progress_updates_itself_until_the_tournament_is_over(live_server, live, chromium):
    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.clock.install()  # the page's timers run when the test says
    polled = []

    def progress(route):
        polled.append(route.request.url)
        if len(polled) == 1:
            route.continue_()  # the server's own fragment: nothing has changed yet
        else:  # then, as if the last table had finished
            route.fulfill(content_type="text/html", body='<p class="notice" data-over>The tournament is over.</p>')

    page.route("**/progress/**", progress)
    page.goto(f"{live_server.url}/tournaments/{live.pk}/")
    box = page.locator("[data-poll]")
    assert "Round 2: 1 of 2 tables finished" in box.inner_text()
    for _ in range(60):  # a poll every 5 s of the page's time
        page.clock.run_for(1000)
        # Real time for a fetch under way to come back and its callback to set the next timer:
        # the page's clock alone would run past a timer not set yet.
        page.wait_for_timeout(50)
        if len(polled) == 2:
            break
    assert polled == [f"{live_server.url}/tournaments/{live.pk}/progress/?closed=1"] * 2
    page.get_by_text("The tournament is over.").wait_for()
    page.clock.run_for(30_000)
    assert len(polled) == 2  # told it is over: no more polling
    context.close()


def test_the_pages_policy_is_enforced_and_watched(live_server, chromium_at_hand):
    """The watch above sees a refusal: an inline script added to a page does not run."""
    with browser.sync_playwright() as playwright:
        watched = Watched(browser.launch(playwright))
        page = watched.new_context().new_page()
        page.goto(live_server.url + "/")
        page.evaluate("""() => {  // as an injected script would: an inline <script>, refused
            const script = document.createElement('script');
            script.textContent = "document.body.dataset.ran = 'yes'";
            document.head.appendChild(script);
        }""")
        assert page.evaluate("document.body.dataset.ran") is None
        assert any("script-src" in v for v in watched.violations), watched.violations
        watched.close()


def test_swagger_ui_and_redoc_work_under_their_policy(live_server, chromium):
    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(live_server.url + "/api/docs/")
    page.locator(".swagger-ui .info .title").filter(has_text="Mazziere API").wait_for()
    page.locator(".opblock-tag").first.wait_for()  # the operations, read from /api/schema/
    page.goto(live_server.url + "/api/redoc/")
    page.locator("h1").filter(has_text="Mazziere API").wait_for()
    page.get_by_placeholder("Search...").fill("standings")  # ReDoc's search runs in its worker
    page.locator("[data-role='search:results'] li, [role=search] + * li").first.wait_for()
    context.close()
    # ReDoc's "API docs by Redocly" logo is an image on its CDN, with no option to leave it out:
    # refused, as these pages load nothing from another host. Any other refusal fails the test.
    chromium.violations[:] = [v for v in chromium.violations
                              if "Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg'" not in v]
