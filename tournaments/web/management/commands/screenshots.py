"""`manage.py screenshots` (`make screenshots`): every page, photographed as people will see it.

Builds a small, realistic club in a throwaway SQLite database (Django's test database, in a
temporary folder; the configured database is never touched): built-in bots play, through the
same services as any tournament, a finished Stoppa Swiss and a second one on the same ladder,
a finished Piazza single elimination, a Spacca il mazzo double elimination and a Stoppa
multi-table knockout, a Sette e mezzo Swiss left half played with one table in play, and a
tournament open for registration. Then it serves the site on a loopback port (DEBUG off, as
deployed) and writes a PNG of each page at each width into ``screenshots/`` (git-ignored),
saying which page, if any, is wider than its window. The organisers' screens and the play
screen (the organiser's own seat at an online table) are photographed signed in as the club's
organiser, every other page as a visitor.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.test import override_settings
from django.test.testcases import LiveServerThread
from django.utils import timezone

from tournaments.models import Match, Player, Rating, Round, Seat, Tournament
from tournaments.services import dispatch
from tournaments.services.ladders import ladder_create
from tournaments.services.leases import matches_claim
from tournaments.services.play import tournament_play_out
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start
from tournaments.web import browser

# Built-in bots named like a club's regulars; "h" plays by rules of thumb, "r" at random.
BOTS = [
    ("volpe", "heuristic"), ("civetta", "heuristic"), ("tasso", "heuristic"), ("lupo", "heuristic"),
    ("gufo", "heuristic"), ("riccio", "heuristic"), ("airone", "heuristic"), ("cervo", "heuristic"),
    ("falco", "heuristic"), ("orso", "heuristic"), ("lince", "heuristic"), ("merlo", "heuristic"),
    ("passero", "random"), ("istrice", "random"), ("lontra", "random"), ("picchio", "random"),
    ("rondine", "random"), ("camoscio", "random"), ("stambecco", "random"), ("ghiro", "random"),
    ("donnola", "random"), ("faina", "random"), ("marmotta", "random"), ("cinghiale", "random"),
    ("capriolo", "heuristic"), ("gabbiano", "heuristic"), ("cormorano", "random"), ("fenicottero", "random"),
    ("pettirosso", "heuristic"), ("allodola", "random"), ("cicogna", "heuristic"), ("gazza", "random"),
    ("upupa", "heuristic"), ("storno", "random"), ("fringuello", "heuristic"), ("scoiattolo", "random"),
]
PEOPLE = [("giulia-rossi", "Giulia Rossi"), ("marco-bianchi", "Marco Bianchi")]
WIDTHS = (390, 1280)
PRINTED = {"15-pairings"}  # also photographed with the print stylesheet
ORGANISER = "nadia"  # the sample club's organiser: the organisers' screens are photographed signed in as her


class Command(BaseCommand):
    help = "Build a sample club in a throwaway database, serve it and photograph every page into screenshots/."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "screenshots"),
                            help="the folder for the PNGs (default: screenshots/ at the repository's root)")
        parser.add_argument("--widths", type=int, nargs="+", default=list(WIDTHS), help="window widths, in px")

    def handle(self, *args: Any, out: str, widths: list[int], **options: Any) -> None:
        why = browser.missing()
        if why:
            raise CommandError(f"cannot photograph the pages: {why}")
        if connection.vendor != "sqlite" or not settings.CELERY_TASK_ALWAYS_EAGER:
            raise CommandError("run it on the embedded defaults: DATABASE_URL and CELERY_BROKER_URL unset "
                               "(make screenshots does)")
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="mazziere-screenshots-") as tmp:
            # Django's test database, a file of its own: the configured database is never touched.
            connection.settings_dict.setdefault("TEST", {})["NAME"] = str(Path(tmp) / "club.sqlite3")
            original = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            try:
                # As deployed (DEBUG off: the site's own 404 page); each match recorded as played.
                with override_settings(DEBUG=False, ALLOWED_HOSTS=["localhost", "127.0.0.1"], EMBEDDED_WORKER=False,
                                       MATCH_FLUSH_SECONDS=0):
                    self.stdout.write("playing the sample tournaments...")
                    pages = club()
                    self._photograph(pages, folder, widths)
            finally:
                connection.creation.destroy_test_db(original, verbosity=0)

    def _photograph(self, pages: list[tuple[str, str, str]], folder: Path, widths: list[int]) -> None:
        server = LiveServerThread("localhost", StaticFilesHandler, port=0)
        server.daemon = True
        server.start()
        server.is_ready.wait()
        if server.error:
            raise CommandError(f"the server did not start: {server.error}")
        base = f"http://localhost:{server.port}"
        too_wide, written = [], 0
        session = _session(ORGANISER)  # before Playwright's event loop, where Django refuses the database
        try:
            with browser.sync_playwright() as playwright:
                chromium = browser.launch(playwright)
                for width in widths:
                    for language in ("en", "it"):
                        context = chromium.new_context(viewport={"width": width, "height": 900}, locale=language,
                                                       device_scale_factor=1)
                        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session,
                                              "url": base}])
                        page = context.new_page()
                        signed_in = True
                        for name, path, lang in pages:
                            if lang != language:
                                continue
                            if signed_in and not name.startswith(SIGNED_IN):  # the public pages as a visitor
                                context.clear_cookies()
                                signed_in = False
                            page.goto(base + path, wait_until="load")
                            target = folder / f"{name}-{width}.png"
                            page.screenshot(path=str(target), full_page=True)
                            scrolled = page.evaluate("document.documentElement.scrollWidth")
                            if scrolled > width:
                                too_wide.append(f"{name} at {width}px is {scrolled}px wide")
                            self.stdout.write(f"  {target}")
                            written += 1
                            if name in PRINTED:  # as the printer gets it too
                                page.emulate_media(media="print")
                                printed = folder / f"{name}-print-{width}.png"
                                page.screenshot(path=str(printed), full_page=True)
                                page.emulate_media(media="screen")
                                self.stdout.write(f"  {printed}")
                                written += 1
                        context.close()
                chromium.close()
        finally:
            server.terminate()
        for line in too_wide:
            self.stderr.write(f"too wide: {line}")
        self.stdout.write(self.style.SUCCESS(f"{written} screenshots in {folder}"))


# --- the sample club ---------------------------------------------------------------------------

def _bots() -> list[Player]:
    return [player_create(name=name, kind=Player.Kind.BOT, display_name=name.capitalize(),
                          bot_kind=Player.BotKind.BUILTIN, bot_config={"bot": bot, "options": {}})
            for name, bot in BOTS]


def _tournament(name: str, slug: str, players: list[Player], **settings_: Any) -> Tournament:
    tournament = tournament_create(name=name, slug=slug, **settings_)
    for player in players:
        entry_add(tournament=tournament, player=player)
    return tournament


def _play(tournament: Tournament, matches: int | None = None) -> Tournament:
    """Start the tournament and play it out, or only its first ``matches`` matches."""
    tournament_start(tournament=tournament)
    played: list[int] = []
    stop = None if matches is None else (lambda: len(played) >= matches)
    tournament_play_out(tournament=tournament, owner="screenshots", on_played=played.append, should_stop=stop)
    tournament.refresh_from_db()
    return tournament


def club() -> list[tuple[str, str, str]]:
    """Play the sample club's tournaments; the pages to photograph: (file name, path, language)."""
    bots = _bots()
    people = [player_create(name=name, kind=Player.Kind.PERSON, display_name=shown) for name, shown in PEOPLE]
    stoppa = ladder_create(slug="stoppa-club", name="Stoppa club ladder", game="stoppa")
    thursday = _play(_tournament("Thursday Stoppa", "thursday-stoppa", bots[:24], game="stoppa", table_size=4,
                                 format="swiss", format_config={"rounds": 5}, options={"hands": 2}, ladder=stoppa))
    _play(_tournament("Stoppa autumn cup", "stoppa-autumn", bots[12:], game="stoppa", table_size=4, format="swiss",
                      format_config={"rounds": 4}, options={"hands": 2}, ladder=stoppa))
    knockout = _play(_tournament("Stoppa knockout", "stoppa-knockout", bots[:16], game="stoppa", table_size=4,
                                 format="knockout", format_config={"advance": 2}, options={"hands": 2},
                                 ladder=ladder_create(slug="stoppa-knockout", name="Stoppa knockouts", game="stoppa")))
    piazza = _play(_tournament("Coppa Piazza", "coppa-piazza", bots[:12], game="piazza", table_size=2,
                               format="single_elimination", format_config={}, options={},
                               ladder=ladder_create(slug="piazza-open", name="Piazza open", game="piazza",
                                                    system="openskill")))
    spacca = _play(_tournament("Spacca il mazzo double", "spacca-double", bots[4:12], game="spacca_il_mazzo",
                               table_size=2, format="double_elimination", format_config={},
                               options={"turn_limit": 200},
                               ladder=ladder_create(slug="spacca", name="Spacca il mazzo ladder",
                                                    game="spacca_il_mazzo")))
    live = _play(_tournament("Sette e mezzo evening", "sette-evening", bots[:20], game="sette_e_mezzo",
                             table_size=5, format="swiss", format_config={"rounds": 4}, options={"hands": 3},
                             ladder=ladder_create(slug="sette", name="Sette e mezzo ladder", game="sette_e_mezzo")),
                 matches=6)
    playing = Match.objects.filter(round__tournament=live, status=Match.Status.PENDING).order_by("pk").first()
    matches_claim(match_ids=[playing.pk], owner="a-worker")  # a worker is playing it
    _tournament("Spacca il mazzo open", "spacca-open", [*people, *bots[24:32]], game="spacca_il_mazzo", table_size=2,
                format="swiss", format_config={"rounds": 3}, options={}, starts_at=timezone.now() + timedelta(days=6))

    top = Rating.objects.filter(ladder=stoppa).order_by("-value").select_related("player").first().player
    live_round = Round.objects.filter(tournament=live, status=Round.Status.PLAYING).order_by("number").first()
    finished_match = Match.objects.filter(round__tournament=thursday, round__number=5).order_by("table").first()
    upcoming = Tournament.objects.get(slug="spacca-open")
    organiser = get_user_model().objects.create_user(ORGANISER, password="screenshots-only")
    for tournament in (upcoming, live):
        tournament.organisers.add(organiser)
    seat = _online_seat(organiser)
    replays = {game: Match.objects.filter(round__tournament=t, status=Match.Status.FINISHED).order_by("pk").first()
               for game, t in (("stoppa", thursday), ("piazza", piazza), ("spacca", spacca))}
    return [
        # Signed in as the organiser (first, while the context has the session).
        ("30-organise", "/organise/", "en"),
        ("31-organise-tournament", f"/organise/{upcoming.pk}/", "en"),
        ("32-organise-edit", f"/organise/{upcoming.pk}/edit/", "en"),
        ("33-organise-new", "/organise/new/", "en"),
        ("34-organise-round", f"/organise/{live.pk}/rounds/{live_round.number}/", "en"),
        ("35-organise-it", f"/organise/{upcoming.pk}/", "it"),
        ("36-play", f"/matches/{seat.match_id}/seats/{seat.position}/play/", "en"),
        ("37-play-it", f"/matches/{seat.match_id}/seats/{seat.position}/play/", "it"),
        ("01-home", "/", "en"),
        ("02-ladders", "/ladders/", "en"),
        ("03-ladder", f"/ladders/{stoppa.pk}/", "en"),
        ("04-ladder-search", f"/ladders/{stoppa.pk}/?q=o", "en"),
        ("05-player", f"/players/{top.pk}/", "en"),
        ("06-tournaments", "/tournaments/", "en"),
        ("07-tournaments-live", "/tournaments/?status=running", "en"),
        ("08-tournament-swiss", f"/tournaments/{thursday.pk}/", "en"),
        ("09-tournament-single-elimination", f"/tournaments/{piazza.pk}/", "en"),
        ("10-tournament-double-elimination", f"/tournaments/{spacca.pk}/", "en"),
        ("11-tournament-knockout", f"/tournaments/{knockout.pk}/", "en"),
        ("12-tournament-live", f"/tournaments/{live.pk}/", "en"),
        ("13-round-live", f"/tournaments/{live.pk}/rounds/{live_round.number}/", "en"),
        ("14-round-finished", f"/tournaments/{thursday.pk}/rounds/5/", "en"),
        ("15-pairings", f"/tournaments/{thursday.pk}/rounds/5/pairings/", "en"),
        ("16-match-finished", f"/matches/{finished_match.pk}/", "en"),
        ("17-match-playing", f"/matches/{playing.pk}/", "en"),
        ("18-tournament-upcoming", f"/tournaments/{upcoming.pk}/", "en"),
        ("19-not-found", "/players/999999/", "en"),
        ("20-home-it", "/", "it"),
        ("21-tournament-it", f"/tournaments/{thursday.pk}/", "it"),
        ("22-player-it", f"/players/{top.pk}/", "it"),
        ("23-ladder-it", f"/ladders/{stoppa.pk}/", "it"),
        ("24-bracket-it", f"/tournaments/{piazza.pk}/", "it"),
        ("25-replay-stoppa", f"/matches/{replays['stoppa'].pk}/replay/?step=12", "en"),
        ("26-replay-piazza-open-hands", f"/matches/{replays['piazza'].pk}/replay/?step=8&open=1", "en"),
        ("27-replay-spacca", f"/matches/{replays['spacca'].pk}/replay/?step=last", "en"),
        ("28-sign-in", "/account/sign-in/", "en"),
        ("29-replay-it", f"/matches/{replays['stoppa'].pk}/replay/?step=12", "it"),
    ]


SIGNED_IN = "3"  # the names of the pages photographed signed in begin so


def _online_seat(user) -> Seat:
    """The organiser's own seat at an online Sette e mezzo table with two built-in bots, opened
    (the bots have moved up to her turn): the play screen's page."""
    her = player_create(name=user.username, kind=Player.Kind.PERSON, owner=user, display_name="Nadia")
    field = [her, builtin_bot_get_or_create(bot="heuristic", name="volpe"),
             builtin_bot_get_or_create(bot="random", name="passero")]
    online = _tournament("Sette e mezzo online", "sette-online", field, game="sette_e_mezzo", table_size=3,
                         format="round_robin", format_config={}, options={"hands": 2}, online=True,
                         move_seconds=120)
    _, progress = tournament_start(tournament=online)
    dispatch.send_progress(progress)  # no broker here: the match opens and the bots move at once
    return Seat.objects.get(match__round__tournament=online, player=her)


def _session(username: str) -> str:
    """A session key of ``username`` signed in (Django's test client makes it, as a browser would)."""
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client.cookies[settings.SESSION_COOKIE_NAME].value
