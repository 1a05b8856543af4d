"""An organiser's evening in a real browser (Debian's Chromium driven by Playwright, against
the live server): alone, she makes a Swiss of eight people played in the room, enters them,
starts it, reports every table of its two rounds, each counting at once, and reads the final
standings. With a co-organiser, on a round robin where every report waits for someone else
(``strict``), she reports table 1's result; the co-organiser, signed in on a phone, confirms
it; and the standings count it. Then every organiser's screen, on a 360 px phone, fits the
screen.

Skipped, or under CI=true failed, where no browser can be launched (test_browser.py)."""

from __future__ import annotations

import re

import pytest

from tournaments.models import Match, Tournament
from tournaments.services.accounts import account_create
from tournaments.services.players import player_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

from .test_browser import DESKTOP, PHONE, chromium, chromium_at_hand, fits  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.django_db(transaction=True)]  # the live server's thread reads what the test wrote

PASSWORD = "correct horse battery staple"
PEOPLE = [("Anna Verdi", "anna-verdi"), ("Bruno Neri", "bruno-neri"), ("Chiara Blu", "chiara-blu"),
          ("Dario Rosa", "dario-rosa")]


@pytest.fixture
def accounts(chromium_at_hand, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return account_create(username="olga", password=PASSWORD), account_create(username="carla", password=PASSWORD)


def sign_in(page, base: str, username: str, then: str = "") -> None:
    """Through the header's link (or the page an organiser's screen sent us to) and the sign-in
    page, as a person does, in whichever language the page speaks."""
    page.goto(base + (then or "/"))
    if "/account/sign-in/" not in page.url:
        page.locator("header a.sign-in").click()
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    assert page.locator("header .account button").is_visible()  # sign out


def new_tournament_form(page, base: str, username: str) -> None:
    """Signed in, through "Organise" to the form of a new tournament."""
    sign_in(page, base, username)
    page.get_by_role("link", name="Organise").click()
    page.get_by_role("link", name="New tournament").click()


def fill_room_tournament(page, name: str, format_name: str, hands: str) -> None:
    """The new tournament's form: Sette e mezzo at tables of four, ``hands`` a match, played in
    the room."""
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Game", exact=True).select_option("sette_e_mezzo")
    page.get_by_label("Players at a table", exact=True).fill("4")
    page.locator("#id_option_sette_e_mezzo_hands").fill(hands)
    page.get_by_label("Format", exact=True).select_option(format_name)
    page.get_by_label("In the room").check()


def enter_people(page, people: list[tuple[str, str]]) -> None:
    """Enter each (name shown, handle) as a new person on the tournament's organiser page."""
    for shown, handle in people:
        page.get_by_label("Name shown").fill(shown)
        page.get_by_label("Handle").first.fill(handle)
        page.get_by_role("button", name="Enter the person").click()
        page.get_by_text(f"{shown} is entered.").wait_for()
    assert page.locator("#entrants ~ .scroll tbody tr").count() == len(people)


@pytest.fixture
def olga_alone(chromium_at_hand, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return account_create(username="olga", password=PASSWORD)


EIGHT = [(f"Giocatore {name}", f"giocatore-{name.lower()}")
         for name in ("Alba", "Bruno", "Carla", "Dino", "Elsa", "Fabio", "Gina", "Ivo")]


def report_tables(page, tables: int, scores: list[int]) -> None:
    """Report tables 1 to ``tables`` of the round on the page, each counting at once; the last
    one takes the page on (to the next round, or the standings)."""
    for n in range(1, tables + 1):
        card = page.locator(f"#table-{n}")
        for seat, score in enumerate(scores):
            card.locator(f"input[name$='score_{seat}']").fill(str(score))
        card.get_by_role("button", name=f"Report table {n}'s result").click()
        page.get_by_text(f"Table {n}: the result is reported and counts in the standings.").wait_for()


def test_one_organiser_alone_runs_a_room_tournament_of_eight_through_two_rounds(live_server, olga_alone, chromium,
                                                                                  tmp_path):
    base = live_server.url
    context = chromium.new_context(viewport=DESKTOP, locale="en-GB")
    page = context.new_page()
    new_tournament_form(page, base, "olga")
    fill_room_tournament(page, "Sole night", "swiss", hands="2")
    page.locator("#id_setting_swiss_rounds").fill("2")
    default = page.get_by_label("An organiser's report counts at once; a player's once an organiser, or someone "
                                "else seated at the table, confirms it")
    assert default.is_visible() and default.is_checked()  # the default: nobody else is needed
    page.get_by_role("button", name="Make the tournament").click()
    page.wait_for_url("**/organise/*/")
    tournament = re.search(r"/organise/(\d+)/", page.url)[1]

    enter_people(page, EIGHT)
    page.get_by_role("button", name="Start the tournament").click()
    page.get_by_text("Sole night has started").wait_for()

    page.get_by_role("link", name="Round 1: results").click()
    assert page.locator("li.table-card").count() == 2
    report_tables(page, 2, [7, 1, -3, -5])
    page.get_by_text("Round 1 is over: here are the tables of round 2.").wait_for()
    assert f"/organise/{tournament}/rounds/2/" in page.url
    assert page.locator("li.table-card").count() == 2
    report_tables(page, 2, [-5, 7, 1, -3])
    page.get_by_text("Sole night is over: here are its final standings.").wait_for()
    assert page.url.endswith(f"/tournaments/{tournament}/#standings-heading")

    standings = page.locator("table.standings tbody tr")
    assert standings.count() == 8
    assert {standings.nth(i).locator("td.num").nth(1).inner_text() for i in range(8)} == {"2"}  # played: 2 each
    shown = sorted(standings.nth(i).locator("td").nth(1).inner_text() for i in range(8))
    assert shown == sorted(name for name, _ in EIGHT)
    page.screenshot(path=str(tmp_path / "final-standings.png"), full_page=True)
    assert (tmp_path / "final-standings.png").stat().st_size > 0
    context.close()


def test_an_organiser_runs_a_room_tournament_and_a_co_organiser_confirms_its_result(live_server, accounts, chromium):
    base = live_server.url
    olga_context = chromium.new_context(viewport=DESKTOP, locale="en-GB")
    page = olga_context.new_page()
    new_tournament_form(page, base, "olga")

    fill_room_tournament(page, "Room night", "round_robin", hands="0")  # refused: at least 1
    # The form shows the chosen game's options and format's settings only (organise.js).
    assert page.locator("[data-game=stoppa]").is_hidden() and page.locator("[data-game=sette_e_mezzo]").is_visible()
    assert page.locator("[data-room]").is_visible()
    page.get_by_label("Online: people and remote bots play their moves through the API").check()
    assert page.locator("[data-room]").is_hidden()  # who confirms reported results: the room's setting
    page.get_by_label("In the room").check()
    page.get_by_label("Every report waits for someone other than its author to confirm it, an organiser's too").check()
    page.get_by_role("button", name="Make the tournament").click()
    summary = page.locator("[data-error-summary]")
    assert "hands" in summary.inner_text()
    assert page.evaluate("document.activeElement.hasAttribute('data-error-summary')")  # read out first
    page.locator("#id_option_sette_e_mezzo_hands").fill("2")
    page.get_by_role("button", name="Make the tournament").click()
    page.wait_for_url("**/organise/*/")
    assert page.get_by_text("Room night is made").is_visible()
    tournament = re.search(r"/organise/(\d+)/", page.url)[1]

    enter_people(page, PEOPLE)
    page.get_by_label("Their username").fill("carla")
    page.get_by_role("button", name="Add a co-organiser").click()
    page.get_by_text("carla now organises Room night too.").wait_for()

    page.get_by_role("button", name="Start the tournament").click()
    page.get_by_text("Room night has started").wait_for()
    page.get_by_role("link", name="Round 1: results").click()
    table = page.locator("#table-1")
    seated = [table.locator("tbody tr").nth(i).locator("td").nth(1).inner_text() for i in range(4)]
    assert sorted(seated) == sorted(shown for shown, _ in PEOPLE)
    for seat, score in enumerate([7, 1, -3, -5]):
        table.locator(f"input[name$='score_{seat}']").fill(str(score))
    table.get_by_role("button", name="Report table 1's result").click()
    page.get_by_text("the result is reported; someone else confirms it").wait_for()
    assert page.locator("#table-1").get_by_text("waiting for someone else to confirm it").is_visible()

    carla_context = chromium.new_context(viewport=PHONE, locale="en-GB", is_mobile=True, has_touch=True)
    phone = carla_context.new_page()
    sign_in(phone, base, "carla", then=f"/organise/{tournament}/rounds/1/")  # sent to sign in, then back
    assert f"/organise/{tournament}/rounds/1/" in phone.url
    fits(phone, PHONE["width"])
    phone.get_by_role("button", name="Confirm table 1's result").click()
    phone.get_by_text("the result is confirmed and counts in the standings").wait_for()
    fits(phone, PHONE["width"])

    page.goto(f"{base}/tournaments/{tournament}/")
    standings = page.locator("table.standings tbody tr")
    assert standings.count() == 4
    assert [standings.nth(i).locator("td").nth(1).inner_text() for i in range(4)] == seated  # by the scores
    assert standings.first.locator("td.num").nth(1).inner_text() == "1"  # played: its one table
    olga_context.close()
    carla_context.close()


@pytest.fixture
def busy(accounts) -> Tournament:
    """A room round robin of eight people at tables of four, started, olga's."""
    olga, _ = accounts
    tournament = tournament_create(name="Una serata con un nome piuttosto lungo per un telefono",
                                   slug="serata", game="stoppa", table_size=4, format="round_robin", owner=olga)
    for i in range(8):
        entry_add(tournament=tournament, player=player_create(name=f"giocatrice-numero-{i}", kind="person",
                                                              display_name=f"Giocatrice numero {i}", owner=olga))
    tournament_start(tournament=tournament, actor=olga)
    # Read now: once the browser runs, its event loop keeps the ORM out of this thread.
    tournament.first_table = Match.objects.filter(round__tournament=tournament).order_by("table").first()
    return tournament


def test_every_organisers_screen_fits_a_phone(live_server, busy, chromium):
    context = chromium.new_context(viewport=PHONE, locale="it-IT", is_mobile=True, has_touch=True)
    page = context.new_page()
    for path in ("/account/sign-in/", "/account/sign-up/"):
        page.goto(live_server.url + path)
        fits(page, PHONE["width"])
    sign_in(page, live_server.url, "olga", then="/account/sign-in/")
    match = busy.first_table
    for path in ("/organise/", "/organise/new/", f"/organise/{busy.pk}/", f"/organise/{busy.pk}/rounds/1/",
                 f"/organise/{busy.pk}/cancel/", "/account/tokens/"):
        page.goto(live_server.url + path)
        fits(page, PHONE["width"])
    page.goto(f"{live_server.url}/organise/{busy.pk}/rounds/1/")
    page.locator(f"#id_table-{match.pk}-score_0").fill("5")  # the other seats left empty: refused
    page.locator(f"#table-{match.table} button[type=submit]").click()
    page.wait_for_load_state()
    assert page.locator("[data-error-summary]").count() == 1
    fits(page, PHONE["width"])
    context.close()
