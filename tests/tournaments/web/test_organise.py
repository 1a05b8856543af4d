"""The organisers' screens, as an organiser uses them: making a tournament (every refusal next
to its field), changing it before it starts, deleting it, entering and withdrawing players,
starting it, and reporting and confirming the results of tables played in the room until the
standings show them. And who may not: anonymous visitors are sent to sign in; strangers, and
players who do not organise, get 403 with the reason; a POST without its CSRF token is
refused."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tournaments import selectors
from tournaments.models import AuditEvent, Entry, Match, Player, ResultSubmission, Tournament, Webhook
from tournaments.services.accounts import account_create
from tournaments.services.ladders import ladder_create
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start
from tournaments.services.webhooks import webhook_create

from .pages import body, section, text

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # the tests sign in often


def account(name: str):
    return account_create(username=name, password=PASSWORD)


def as_user(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def olga(db):
    """The organiser: she owns the tournaments."""
    return account("olga")


@pytest.fixture
def carla(db):
    """A co-organiser of the club's tournament."""
    return account("carla")


@pytest.fixture
def club(olga, carla) -> Tournament:
    """A Sette e mezzo round robin at a table of four, played in the room, open for
    registration: four people olga registered. Its two organisers confirm each other's
    reports (``strict``: an organiser's report too waits for someone else)."""
    tournament = tournament_create(name="Club night", slug="club-night", game="sette_e_mezzo", table_size=4,
                                   format="round_robin", options={"hands": 2}, confirmation="strict", owner=olga,
                                   actor=olga)
    tournament.organisers.add(carla)
    for name in ("anna", "bruno", "chiara", "dario"):
        entry_add(tournament=tournament, player=player_create(name=name, kind="person", owner=olga))
    return tournament


@pytest.fixture
def started(club, olga) -> Tournament:
    tournament, _ = tournament_start(tournament=club, actor=olga)
    return tournament


def form(**changes) -> dict:
    """A new tournament's form as a browser sends it: a Sette e mezzo Swiss in the room."""
    data = {"name": "Saturday", "slug": "", "game": "sette_e_mezzo", "table_size": "4", "format": "swiss",
            "where": "room", "points_by_place": "", "option_sette_e_mezzo_hands": "2",
            "setting_swiss_rounds": "3", "tiebreak_1": "match_points", "tiebreak_2": "buchholz"}
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def error_next_to(page: str, field_id: str) -> str:
    """The words of the errors shown next to a field (the list its input names in
    aria-describedby)."""
    input_tag = re.search(rf'<(?:input|select)[^>]*id="{field_id}"[^>]*>', page) or re.search(
        rf'<(?:input|select)[^>]*name="[^"]*"[^>]*id="{field_id}"', page)
    assert input_tag, f"no input {field_id}"
    assert f"{field_id}_error" in input_tag[0] and 'aria-invalid="true"' in input_tag[0], input_tag[0]
    start = page.index(f'id="{field_id}_error"')
    return text(page[start:page.index("</ul>", start)].split(">", 1)[1])


def group_error(page: str, group_id: str) -> str:
    assert f'aria-describedby="{group_id}"' in page or f' {group_id}"' in page
    start = page.index(f'id="{group_id}"')
    return text(page[start:page.index("</ul>", start)].split(">", 1)[1])


# --- making a tournament ------------------------------------------------------------------------

def test_an_organiser_makes_a_tournament_with_every_setting(olga):
    ladder = ladder_create(slug="sette", name="Sette ladder", game="sette_e_mezzo", owner=olga)
    when = (timezone.now() + timedelta(days=30)).replace(second=0, microsecond=0)
    client = as_user(olga)
    answer = client.post("/organise/new/", form(
        name="Saturday Sette", points_by_place="5, 3, 1, 0", tiebreak_1="buchholz", tiebreak_2="wins",
        option_sette_e_mezzo_matta="none", option_sette_e_mezzo_stake_max="5", ladder=str(ladder.pk),
        starts_at=when.strftime("%Y-%m-%dT%H:%M"), open_entry="on", setting_swiss_min_seats="3",
        option_stoppa_hands="7"))  # another game's options do not count
    tournament = Tournament.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/organise/{tournament.pk}/"
    assert (tournament.slug, tournament.owner, tournament.status) == ("saturday-sette", olga, "registration")
    assert tournament.options == {"hands": 2, "matta": None, "stake_max": 5}
    assert tournament.format_config == {"rounds": 3, "min_seats": 3}
    assert tournament.points_by_place == [5, 3, 1, 0] and tournament.tiebreaks == ["buchholz", "wins"]
    assert tournament.ladder == ladder and tournament.open_entry and not tournament.online
    assert tournament.starts_at == when and not tournament.seed_chosen
    assert "Saturday Sette is made" in text(body(client.get(answer["Location"])))


def test_a_tournament_played_online_keeps_its_clock(olga):
    client = as_user(olga)
    answer = client.post("/organise/new/", form(where="online", move_seconds="30", bank_seconds="120",
                                                timeout_bot="heuristic", seed="42"))
    assert answer.status_code == 302
    tournament = Tournament.objects.get()
    assert (tournament.online, tournament.move_seconds, tournament.bank_seconds, tournament.timeout_bot) == (
        True, 30, 120, "heuristic")
    assert tournament.seed == 42 and tournament.seed_chosen


def test_an_organiser_allows_an_account_several_seats_except_in_a_rated_tournament(olga):
    client = as_user(olga)
    assert client.post("/organise/new/", form(where="online", several_seats="on")).status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.several_seats
    assert "an account may hold several seats whose cards it sees" in text(body(client.get(f"/organise/{tournament.pk}/")))
    ladder = ladder_create(slug="sette", name="Sette ladder", game="sette_e_mezzo", owner=olga)
    answer = client.post("/organise/new/", form(name="Rated", several_seats="on", ladder=str(ladder.pk)))
    assert answer.status_code == 400
    assert "never allowed in a rated tournament" in error_next_to(answer.content.decode(), "id_several_seats")
    assert Tournament.objects.count() == 1


def test_in_the_room_the_online_clock_is_not_sent(olga):
    answer = as_user(olga).post("/organise/new/", form(where="room", move_seconds="oops", timeout_bot="heuristic"))
    assert answer.status_code == 302
    assert Tournament.objects.get().move_seconds is None and Tournament.objects.get().timeout_bot == ""


@pytest.mark.parametrize("changes, field, says", [
    ({"name": ""}, "id_name", "This field is required"),
    ({"table_size": "12"}, "id_table_size", "Sette e mezzo is played by 3 to 10 at a table, not 12"),
    ({"table_size": "four"}, "id_table_size", "Enter a whole number"),
    ({"points_by_place": "3, 2, 1"}, "id_points_by_place", "points_by_place must list 4 numbers"),
    ({"points_by_place": "3, two, 1, 0"}, "id_points_by_place", "two is not a number"),
    ({"option_sette_e_mezzo_hands": "0"}, "id_option_sette_e_mezzo_hands", "greater than or equal to 1"),
    ({"option_sette_e_mezzo_hands": "201"}, "id_option_sette_e_mezzo_hands", "less than or equal to 200"),
    ({"option_sette_e_mezzo_min_participants": "5"}, "id_option_sette_e_mezzo_min_participants",
     "fewer than min_participants=5"),
    ({"setting_swiss_min_seats": "9"}, "id_setting_swiss_min_seats", "min_seats must be between"),
    ({"setting_swiss_rounds": "101"}, "id_setting_swiss_rounds", "less than or equal to 100"),
    ({"slug": "not a slug"}, "id_slug", "Enter a valid"),
    ({"name": "!!!"}, "id_slug", "Give a short name"),
    ({"where": "online", "duplicate": "on"}, "id_duplicate", "duplicate play is for bots"),
    ({"where": "online", "bank_seconds": "60"}, "id_bank_seconds", "set move_seconds too"),
    ({"starts_at": "2999-01-01T10:00"}, "id_starts_at", "at most 10 years ahead"),
    ({"starts_at": "tomorrow"}, "id_starts_at", "Enter a valid date/time"),
    ({"round_interval": "0"}, "id_round_interval", "greater than or equal to 1"),
    ({"seed": "-1"}, "id_seed", "greater than or equal to 0"),
    ({"format": "single_elimination"}, "id_table_size", "single_elimination is played at tables of 2, not 4"),
    ({"game": "chess"}, "id_game", "Select a valid choice"),
])
def test_a_refused_setting_is_shown_next_to_its_field(olga, changes, field, says):
    answer = as_user(olga).post("/organise/new/", form(**changes))
    assert answer.status_code == 400
    page = answer.content.decode()
    assert says in error_next_to(page, field)
    assert 'data-error-summary' in page and f'href="#{field}"' in page  # the summary links to the field
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("changes, group, says", [
    ({"option_sette_e_mezzo_stake_min": "10", "option_sette_e_mezzo_stake_max": "5"}, "options-group",
     "stake_min (10) is above stake_max (5)"),
    ({"tiebreak_1": "buchholz", "tiebreak_2": "buchholz"}, "tiebreaks-group", "buchholz more than once"),
])
def test_a_refusal_of_a_group_of_fields_is_shown_on_the_group(olga, changes, group, says):
    answer = as_user(olga).post("/organise/new/", form(**changes))
    assert answer.status_code == 400
    assert says in group_error(answer.content.decode(), group)
    assert not Tournament.objects.exists()


def test_a_slug_already_taken_is_refused_next_to_it(olga, club):
    answer = as_user(olga).post("/organise/new/", form(name="Club night"))
    assert answer.status_code == 400
    assert "a tournament with slug 'club-night' already exists" in error_next_to(answer.content.decode(), "id_slug")


def test_a_ladder_of_another_game_is_refused_and_someone_elses_is_not_offered(olga):
    mine = ladder_create(slug="stoppa", name="Stoppa ladder", game="stoppa", owner=olga)
    theirs = ladder_create(slug="theirs", name="Their ladder", game="sette_e_mezzo", owner=account("tom"))
    client = as_user(olga)
    page = body(client.get("/organise/new/"))
    assert "Stoppa ladder" in page and "Their ladder" not in page
    answer = client.post("/organise/new/", form(ladder=str(mine.pk)))
    assert "ladder stoppa rates stoppa, not sette_e_mezzo" in error_next_to(answer.content.decode(), "id_ladder")
    answer = client.post("/organise/new/", form(ladder=str(theirs.pk)))
    assert answer.status_code == 400 and "Select a valid choice" in error_next_to(answer.content.decode(), "id_ladder")


def test_the_new_tournament_form_labels_every_field(olga):
    page = body(as_user(olga).get("/organise/new/"))
    inputs = re.findall(r'<(?:input|select)\b[^>]*\bid="([^"]+)"', page)
    assert len(inputs) > 40
    labelled = set(re.findall(r'<label for="([^"]+)"', page))
    # Radio buttons are labelled by the label they sit in, inside a fieldset with its legend.
    unlabelled = [i for i in inputs if i not in labelled and not re.match(r"id_where_\d", i)]
    assert unlabelled == []


# --- changing and deleting it ------------------------------------------------------------------------

def test_an_organiser_changes_a_tournament_before_it_starts(club, carla):
    client = as_user(carla)
    page = body(client.get(f"/organise/{club.pk}/edit/"))
    assert 'value="Club night"' in page and 'value="2"' in page  # filled in as it stands
    answer = client.post(f"/organise/{club.pk}/edit/", form(
        name="Club night, moved", slug="club-night", format="round_robin", setting_swiss_rounds=None,
        option_sette_e_mezzo_hands="3", tiebreak_1="match_points", tiebreak_2="buchholz", tiebreak_3="sonneborn_berger",
        tiebreak_4="head_to_head", tiebreak_5="game_score", tiebreak_6="wins"))
    assert answer.status_code == 302
    club.refresh_from_db()
    assert (club.name, club.options, club.format) == ("Club night, moved", {"hands": 3}, "round_robin")
    changed = AuditEvent.objects.filter(tournament=club, action="updated").get().detail["fields"]
    assert changed == ["name", "options"]  # only what changed was sent


def test_a_tournament_is_not_changed_once_it_has_started(started, olga):
    client = as_user(olga)
    assert client.get(f"/organise/{started.pk}/edit/").status_code == 409
    answer = client.post(f"/organise/{started.pk}/edit/",
                         form(name="Too late", slug="club-night", format="round_robin"))
    assert answer.status_code == 409
    assert "it changes only before it starts" in text(answer.content.decode())
    started.refresh_from_db()
    assert started.name == "Club night"


def test_the_owner_deletes_a_tournament_not_yet_started(club, olga, carla):
    assert as_user(carla).post(f"/organise/{club.pk}/delete/").status_code == 403  # a co-organiser does not
    client = as_user(olga)
    assert "Delete Club night?" in text(body(client.get(f"/organise/{club.pk}/delete/")))
    answer = client.post(f"/organise/{club.pk}/delete/")
    assert answer.status_code == 302 and answer["Location"] == "/organise/"
    assert not Tournament.objects.exists() and Player.objects.count() == 4  # the players stay


def test_a_started_tournament_is_not_deleted(started, olga):
    answer = as_user(olga).post(f"/organise/{started.pk}/delete/")
    assert answer.status_code == 409 and "cancel it instead" in text(answer.content.decode())
    assert Tournament.objects.filter(pk=started.pk).exists()


def test_an_organiser_cancels_a_tournament(started, carla):
    answer = as_user(carla).post(f"/organise/{started.pk}/cancel/")
    assert answer.status_code == 302
    started.refresh_from_db()
    assert started.status == "cancelled"
    assert as_user(carla).post(f"/organise/{started.pk}/cancel/").status_code == 409


# --- entering and withdrawing players ------------------------------------------------------------------

def test_an_organiser_enters_a_person_a_new_bot_and_an_existing_bot(club, carla):
    client = as_user(carla)
    house = builtin_bot_get_or_create(bot="heuristic", name="house-bot")
    assert client.post(f"/organise/{club.pk}/entries/person/",
                       {"person-name": "giulia-rossi", "person-display_name": "Giulia Rossi"}).status_code == 302
    assert client.post(f"/organise/{club.pk}/entries/bot/",
                       {"bot-bot": "expectimax", "bot-name": "carla-expectimax"}).status_code == 302
    assert client.post(f"/organise/{club.pk}/entries/existing/", {"existing-player": "house-bot"}).status_code == 302
    entered = list(club.entries.order_by("seed_rank").values_list("player__name", flat=True))
    assert entered[-3:] == ["giulia-rossi", "carla-expectimax", "house-bot"]
    giulia = Player.objects.get(name="giulia-rossi")
    assert (giulia.kind, giulia.display_name, giulia.owner) == ("person", "Giulia Rossi", carla)
    bot = Player.objects.get(name="carla-expectimax")
    assert (bot.bot_kind, bot.bot_config["bot"], bot.owner) == ("builtin", "expectimax", carla)
    page = section(body(client.get(f"/organise/{club.pk}/")), "entrants")
    assert "Giulia Rossi" in text(page) and "house-bot" in text(page)
    assert house.owner is None


def test_a_handle_taken_is_refused_next_to_it(club, olga):
    answer = as_user(olga).post(f"/organise/{club.pk}/entries/person/", {"person-name": "anna"})
    assert answer.status_code == 400
    assert "a player named 'anna' already exists" in error_next_to(answer.content.decode(), "id_person-name")
    answer = as_user(olga).post(f"/organise/{club.pk}/entries/person/", {"person-name": "Giulia Rossi"})
    assert "Enter a valid" in error_next_to(answer.content.decode(), "id_person-name")


def test_a_refused_entry_leaves_no_player_behind(started, olga):
    answer = as_user(olga).post(f"/organise/{started.pk}/entries/bot/", {"bot-bot": "random", "bot-name": "late-bot"})
    assert answer.status_code == 400
    assert "entries are closed: the tournament is running" in text(answer.content.decode())
    assert not Player.objects.filter(name="late-bot").exists()


def test_nobody_enters_someone_elses_person(club, olga):
    account("pia")
    pia = player_create(name="pia", kind="person", owner=account("pia-owner"))
    answer = as_user(olga).post(f"/organise/{club.pk}/entries/existing/", {"existing-player": pia.name})
    assert answer.status_code == 403
    assert "a person or an external bot is entered by its owner" in text(answer.content.decode())
    assert not Entry.objects.filter(player=pia).exists()
    unknown = as_user(olga).post(f"/organise/{club.pk}/entries/existing/", {"existing-player": "nobody"})
    assert "No player has the handle nobody" in error_next_to(unknown.content.decode(), "id_existing-player")


def test_an_organiser_withdraws_a_player(club, carla):
    entry = club.entries.get(player__name="dario")
    answer = as_user(carla).post(f"/organise/{club.pk}/entries/{entry.pk}/withdraw/")
    assert answer.status_code == 302
    entry.refresh_from_db()
    assert entry.withdrawn_at is not None
    assert "withdrawn" in text(section(body(as_user(carla).get(f"/organise/{club.pk}/")), "entrants"))


def test_a_player_withdraws_their_own_entry_but_nobody_elses(club):
    pia = account("pia")
    mine = entry_add(tournament=club, player=player_create(name="pia", kind="person", owner=pia))
    someone = club.entries.get(player__name="anna")
    assert as_user(pia).post(f"/organise/{club.pk}/entries/{someone.pk}/withdraw/").status_code == 403
    assert as_user(pia).post(f"/organise/{club.pk}/entries/{mine.pk}/withdraw/").status_code == 302
    mine.refresh_from_db()
    assert mine.withdrawn_at is not None


# --- starting -------------------------------------------------------------------------------------

def test_an_organiser_starts_the_tournament(club, olga):
    client = as_user(olga)
    answer = client.post(f"/organise/{club.pk}/start/")
    assert answer.status_code == 302
    club.refresh_from_db()
    assert club.status == "running" and club.rounds.count() == 1
    page = body(client.get(f"/organise/{club.pk}/"))
    assert f'href="/organise/{club.pk}/rounds/1/"' in page
    assert f'href="/tournaments/{club.pk}/rounds/1/pairings/"' in page
    assert "Start the tournament" not in page and "Enter players" not in page


def test_too_few_entrants_are_said_next_to_the_start_button(olga):
    tournament = tournament_create(name="Small", slug="small", game="stoppa", table_size=4, format="round_robin",
                                   owner=olga)
    entry_add(tournament=tournament, player=player_create(name="solo", kind="person", owner=olga))
    answer = as_user(olga).post(f"/organise/{tournament.pk}/start/")
    assert answer.status_code == 400
    page = answer.content.decode()
    assert 'aria-describedby="start-help problem-start"' in page
    assert "1 entrants cannot fill a table of 4" in text(page[page.index('id="problem-start"'):])
    tournament.refresh_from_db()
    assert tournament.status == "registration"


def test_a_bots_tournament_started_here_is_played_by_the_workers(olga, django_capture_on_commit_callbacks):
    tournament = tournament_create(name="Bots", slug="bots", game="sette_e_mezzo", table_size=4,
                                   format="round_robin", options={"hands": 1}, owner=olga)
    for i in range(4):
        entry_add(tournament=tournament, player=builtin_bot_get_or_create(bot="random", name=f"r-{i}"))
    with django_capture_on_commit_callbacks(execute=True) as sent:  # sent once the request commits
        assert as_user(olga).post(f"/organise/{tournament.pk}/start/").status_code == 302
    assert sent  # the round's bot table went to the workers (played at once here: eager tasks)
    tournament.refresh_from_db()
    assert tournament.status == "finished"


# --- results of tables played in the room -----------------------------------------------------------------

def table_one(tournament) -> Match:
    return Match.objects.get(round__tournament=tournament, round__number=1, table=1)


def scores_form(match: Match, scores: list, places: list | None = None) -> dict:
    data = {f"table-{match.pk}-score_{i}": str(s) for i, s in enumerate(scores)}
    for i, place in enumerate(places or []):
        data[f"table-{match.pk}-place_{i}"] = "" if place is None else str(place)
    return data


def test_a_result_reported_by_one_organiser_and_confirmed_by_another_counts_in_the_standings(started, olga, carla):
    match = table_one(started)
    seated = [seat.player.name for seat in match.seats.order_by("position")]
    client = as_user(olga)
    page = body(client.get(f"/organise/{started.pk}/rounds/1/"))
    assert f'action="/organise/tables/{match.pk}/report/"' in page
    assert f'<label class="visually-hidden" for="id_table-{match.pk}-score_0">' in page

    answer = client.post(f"/organise/tables/{match.pk}/report/", scores_form(match, [6, -1, -2, -3]))
    assert answer.status_code == 302 and answer["Location"] == f"/organise/{started.pk}/rounds/1/#table-1"
    submission = ResultSubmission.objects.get()
    assert (submission.scores, submission.places, submission.status) == ([6, -1, -2, -3], [1, 2, 3, 4], "pending")
    page = body(client.get(f"/organise/{started.pk}/rounds/1/"))
    assert "waiting for someone else to confirm it" in text(page) and "Confirm table 1" not in text(page)
    assert all(line.played == 0 for line in selectors.tournament_standings(started))  # not counted yet

    own = client.post(f"/organise/results/{submission.pk}/confirm/")  # its author may not confirm it
    assert own.status_code == 403
    assert "confirmed by someone other than its author" in text(own.content.decode())

    other = as_user(carla)
    assert "Confirm table 1" in text(body(other.get(f"/organise/{started.pk}/rounds/1/")))
    answer = other.post(f"/organise/results/{submission.pk}/confirm/")
    assert answer.status_code == 302
    match.refresh_from_db()
    assert match.status == "finished"
    standings = selectors.tournament_standings(Tournament.objects.get(pk=started.pk))
    assert [(line.player.name, line.played, line.match_points) for line in standings] == [
        (seated[0], 1, 3), (seated[1], 1, 2), (seated[2], 1, 1), (seated[3], 1, 0)]
    shown = section(body(Client().get(f"/tournaments/{started.pk}/")), "standings-heading")
    assert re.findall(r'href="/players/\d+/">([^<]+)<', shown) == seated  # the public page, in rank order


def test_a_result_that_does_not_add_up_is_refused_next_to_the_scores(started, olga):
    match = table_one(started)
    answer = as_user(olga).post(f"/organise/tables/{match.pk}/report/", scores_form(match, [5, 1, 1, 1]))
    assert answer.status_code == 400
    assert "add up to 0" in group_error(answer.content.decode(), f"table-{match.pk}-scores-group")
    assert not ResultSubmission.objects.exists()


def test_places_are_given_for_every_seat_or_none(started, olga):
    match = table_one(started)
    answer = as_user(olga).post(f"/organise/tables/{match.pk}/report/",
                                scores_form(match, [6, -1, -2, -3], [1, 2, None, None]))
    assert answer.status_code == 400
    assert "Give every seat's place, or none" in group_error(answer.content.decode(),
                                                             f"table-{match.pk}-places-group")
    missing = as_user(olga).post(f"/organise/tables/{match.pk}/report/", scores_form(match, [6, -1, "", -3]))
    assert "This field is required" in error_next_to(missing.content.decode(), f"id_table-{match.pk}-score_2")
    assert not ResultSubmission.objects.exists()


def test_a_rejected_result_is_reported_again(started, olga, carla):
    match = table_one(started)
    as_user(olga).post(f"/organise/tables/{match.pk}/report/", scores_form(match, [6, -1, -2, -3]))
    submission = ResultSubmission.objects.get()
    empty = as_user(carla).post(f"/organise/results/{submission.pk}/reject/", {f"reject-{submission.pk}-reason": ""})
    assert empty.status_code == 400
    answer = as_user(carla).post(f"/organise/results/{submission.pk}/reject/",
                                 {f"reject-{submission.pk}-reason": "seat 2 won the last hand"})
    assert answer.status_code == 302
    submission.refresh_from_db()
    assert submission.status == "rejected"
    page = body(as_user(olga).get(f"/organise/{started.pk}/rounds/1/"))
    assert "seat 2 won the last hand" in text(page) and f'action="/organise/tables/{match.pk}/report/"' in page


def test_the_owner_of_a_seated_player_reports_their_own_table(olga):
    pia = account("pia")
    tournament = tournament_create(name="Open", slug="open", game="sette_e_mezzo", table_size=4,
                                   format="round_robin", open_entry=True, owner=olga)
    for name in ("anna", "bruno", "chiara"):
        entry_add(tournament=tournament, player=player_create(name=name, kind="person", owner=olga))
    entry_add(tournament=tournament, player=player_create(name="pia", kind="person", owner=pia))
    tournament_start(tournament=tournament, actor=olga)
    match = table_one(tournament)
    client = as_user(pia)
    assert client.get(f"/organise/{tournament.pk}/").status_code == 403  # she does not organise it
    assert f'action="/organise/tables/{match.pk}/report/"' in body(client.get(f"/organise/{tournament.pk}/rounds/1/"))
    assert client.post(f"/organise/tables/{match.pk}/report/", scores_form(match, [0, 0, 0, 0])).status_code == 302
    assert as_user(olga).post(f"/organise/results/{ResultSubmission.objects.get().pk}/confirm/").status_code == 302


def test_a_sole_organisers_reports_count_at_once_round_after_round_to_the_final_standings(olga):
    """The default (``other``): olga runs a Swiss of eight people alone; each table she reports
    counts at once; the round's last table takes her to the next round's tables, the
    tournament's last to its final standings."""
    tournament = tournament_create(name="Alone", slug="alone", game="sette_e_mezzo", table_size=4, format="swiss",
                                   format_config={"rounds": 2}, options={"hands": 2}, owner=olga)
    for i in range(8):
        entry_add(tournament=tournament, player=player_create(name=f"guest-{i}", kind="person", owner=olga))
    tournament_start(tournament=tournament, actor=olga)
    client = as_user(olga)
    assert "an organiser's report counts in the standings at once" in text(
        body(client.get(f"/organise/{tournament.pk}/rounds/1/")))
    ends = []
    for number in (1, 2):
        for match in Match.objects.filter(round__tournament=tournament, round__number=number).order_by("table"):
            answer = client.post(f"/organise/tables/{match.pk}/report/", scores_form(match, [6, -1, -2, -3]))
            assert answer.status_code == 302
            ends.append(answer["Location"])
            assert Match.objects.get(pk=match.pk).status == "finished"
    assert ends == [f"/organise/{tournament.pk}/rounds/1/#table-1", f"/organise/{tournament.pk}/rounds/2/",
                    f"/organise/{tournament.pk}/rounds/2/#table-1", f"/tournaments/{tournament.pk}/#standings-heading"]
    assert set(ResultSubmission.objects.values_list("status", "submitted_by", "confirmed_by")) == {
        ("confirmed", olga.pk, olga.pk)}
    page = text(body(client.get(ends[-1])))
    assert "Alone is over: here are its final standings." in page
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"
    assert all(line.played == 2 for line in selectors.tournament_standings(Tournament.objects.get(pk=tournament.pk)))


def test_under_the_organiser_rule_only_an_organiser_sees_the_confirm_button(olga):
    pia, ugo = account("pia"), account("ugo")
    tournament = tournament_create(name="Vetted", slug="vetted", game="sette_e_mezzo", table_size=4,
                                   format="round_robin", open_entry=True, confirmation="organiser", owner=olga)
    for name, owner in (("anna", olga), ("bruno", olga), ("pia", pia), ("ugo", ugo)):
        entry_add(tournament=tournament, player=player_create(name=name, kind="person", owner=owner))
    tournament_start(tournament=tournament, actor=olga)
    match = table_one(tournament)
    answer = as_user(pia).post(f"/organise/tables/{match.pk}/report/", scores_form(match, [6, -1, -2, -3]))
    assert answer.status_code == 302
    submission = ResultSubmission.objects.get()
    assert submission.status == "pending"
    for user in (pia, ugo):  # its author, and another player seated there
        page = text(body(as_user(user).get(f"/organise/{tournament.pk}/rounds/1/")))
        assert "waiting for an organiser to confirm it" in page and "An organiser confirms it." in page
        assert "Confirm table 1" not in page and "Reject the result" in page
        refused = as_user(user).post(f"/organise/results/{submission.pk}/confirm/")
        assert refused.status_code == 403 and "confirmed by an organiser" in text(refused.content.decode())
    assert Match.objects.get(pk=match.pk).status == "pending"
    assert "Confirm table 1" in text(body(as_user(olga).get(f"/organise/{tournament.pk}/rounds/1/")))
    assert as_user(olga).post(f"/organise/results/{submission.pk}/confirm/").status_code == 302
    assert Match.objects.get(pk=match.pk).status == "finished"


def test_who_confirms_is_chosen_on_the_form_and_shown_on_the_organisers_page(olga):
    client = as_user(olga)
    page = body(client.get("/organise/new/"))
    assert re.search(r'<input type="radio" name="confirmation" value="other"[^>]*checked', page)  # the default
    answer = client.post("/organise/new/", form(confirmation="strict"))
    tournament = Tournament.objects.get()
    assert answer.status_code == 302 and tournament.confirmation == "strict"
    assert "Every report waits for someone other than its author to confirm it, an organiser's too" in text(
        body(client.get(f"/organise/{tournament.pk}/")))
    assert client.post(f"/organise/{tournament.pk}/edit/", form(confirmation="none")).status_code == 302
    assert Tournament.objects.get().confirmation == "none"
    refused = client.post(f"/organise/{tournament.pk}/edit/", form(confirmation="everyone"))
    assert refused.status_code == 400 and "Select a valid choice" in text(refused.content.decode())
    assert Tournament.objects.get().confirmation == "none"
    # Online, the field is hidden and not sent: the rule stays as it was.
    assert client.post(f"/organise/{tournament.pk}/edit/", form(where="online")).status_code == 302
    assert Tournament.objects.get().confirmation == "none"


# --- who may not -----------------------------------------------------------------------------------------

def organiser_actions(tournament, match: Match | None = None, submission: ResultSubmission | None = None):
    """Every organiser's action on ``tournament`` as (method, path, data)."""
    entry = tournament.entries.first()
    pk = tournament.pk
    actions = [
        ("get", f"/organise/{pk}/", {}),
        ("get", f"/organise/{pk}/edit/", {}),
        ("post", f"/organise/{pk}/edit/", form(name="Taken over", slug="taken-over")),
        ("get", f"/organise/{pk}/delete/", {}),
        ("post", f"/organise/{pk}/delete/", {}),
        ("get", f"/organise/{pk}/cancel/", {}),
        ("post", f"/organise/{pk}/cancel/", {}),
        ("post", f"/organise/{pk}/start/", {}),
        ("post", f"/organise/{pk}/entries/person/", {"person-name": "intruder"}),
        ("post", f"/organise/{pk}/entries/bot/", {"bot-bot": "random", "bot-name": "intruder-bot"}),
        ("post", f"/organise/{pk}/entries/existing/", {"existing-player": "anna"}),
        ("post", f"/organise/{pk}/entries/{entry.pk}/withdraw/", {}),
        ("post", f"/organise/{pk}/organisers/", {"organiser-username": "sam"}),
    ]
    if match is not None:
        actions += [("get", f"/organise/{pk}/rounds/1/", {}),
                    ("post", f"/organise/tables/{match.pk}/report/", scores_form(match, [6, -1, -2, -3]))]
    if submission is not None:
        actions += [("post", f"/organise/results/{submission.pk}/confirm/", {}),
                    ("post", f"/organise/results/{submission.pk}/reject/", {f"reject-{submission.pk}-reason": "no"})]
    return actions


@pytest.fixture
def reported(started, olga) -> ResultSubmission:
    """Table 1's result, reported by olga and awaiting confirmation."""
    match = table_one(started)
    as_user(olga).post(f"/organise/tables/{match.pk}/report/", scores_form(match, [6, -1, -2, -3]))
    return ResultSubmission.objects.get()


def unchanged(tournament: Tournament) -> tuple:
    tournament.refresh_from_db()
    return (tournament.name, tournament.status, tournament.entries.count(),
            list(tournament.organisers.values_list("username", flat=True)),
            list(ResultSubmission.objects.values_list("status", flat=True)))


@pytest.mark.parametrize("who", ["stranger", "player"])
def test_who_does_not_organise_gets_403_on_every_organisers_action(olga, who):
    """On a tournament open for registration and on one being played (its results): a
    stranger, and a player entered in both who does not organise them."""
    pia = account("pia")
    hers = player_create(name="pia", kind="person", owner=pia)
    fresh = tournament_create(name="Fresh", slug="fresh", game="sette_e_mezzo", table_size=4, format="round_robin",
                              owner=olga)
    evening = tournament_create(name="Evening", slug="evening", game="sette_e_mezzo", table_size=4,
                                format="round_robin", owner=olga)
    entry_add(tournament=fresh, player=builtin_bot_get_or_create(bot="random", name="fresh-bot"))
    for i in range(7):
        entry_add(tournament=evening, player=player_create(name=f"guest-{i}", kind="person", owner=olga))
    for tournament in (fresh, evening):
        entry_add(tournament=tournament, player=hers)  # last: never the first entry, which the actions withdraw
    tournament_start(tournament=evening, actor=olga)
    elsewhere = Match.objects.filter(round__tournament=evening).exclude(seats__player=hers).get()
    as_user(olga).post(f"/organise/tables/{elsewhere.pk}/report/", scores_form(elsewhere, [6, -1, -2, -3]))
    submission = ResultSubmission.objects.get()
    client = as_user(pia if who == "player" else account("sam"))
    for tournament, match, reported in ((fresh, None, None), (evening, elsewhere, submission)):
        before = unchanged(tournament)
        for method, path, data in organiser_actions(tournament, match, reported):
            if who == "player" and path.endswith("/rounds/1/"):
                continue  # she sits at a table of the round: she sees it, with her own table's form
            answer = getattr(client, method)(path, data)
            assert answer.status_code == 403, (method, path, answer.status_code)
            assert "Not allowed" in text(answer.content.decode()), path
        assert unchanged(tournament) == before


def test_anonymous_visitors_are_sent_to_sign_in(club, reported):
    running = reported.match.round.tournament
    paths = [("get", "/organise/", {}), ("get", "/organise/new/", {}), ("post", "/organise/new/", form())]
    paths += organiser_actions(running, reported.match, reported)
    client = Client()
    for method, path, data in paths:
        answer = getattr(client, method)(path, data)
        assert answer.status_code == 302 and answer["Location"].startswith("/account/sign-in/?next=/organise/"), path
    assert Tournament.objects.count() == 1 and ResultSubmission.objects.get().status == "pending"


def test_a_post_without_its_csrf_token_is_refused(club, olga):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(olga)
    assert browser.post(f"/organise/{club.pk}/start/").status_code == 403
    assert browser.post("/organise/new/", form()).status_code == 403
    club.refresh_from_db()
    assert club.status == "registration" and Tournament.objects.count() == 1


def test_the_owner_removes_a_co_organiser_and_their_webhooks_on_the_tournament_go_with_them(club, olga, carla):
    theirs = webhook_create(owner=carla, url="https://hooks.example.org/carla", events=["match.finished"],
                            tournament=club)
    hers = webhook_create(owner=olga, url="https://hooks.example.org/olga", events=["match.finished"],
                          tournament=club)
    answer = as_user(olga).post(f"/organise/{club.pk}/organisers/{carla.pk}/remove/")
    assert answer.status_code == 302 and not club.organisers.exists()
    assert list(Webhook.objects.values_list("pk", flat=True)) == [hers.pk]
    assert not Webhook.objects.filter(pk=theirs.pk).exists()


# --- the lists and links --------------------------------------------------------------------------------

def test_my_tournaments_lists_those_i_own_or_help_to_run(club, olga, carla):
    tournament_create(name="Someone else's", slug="else", game="stoppa", table_size=4, format="swiss",
                      owner=account("tom"))
    mine = tournament_create(name="Olga's own", slug="own", game="stoppa", table_size=4, format="swiss", owner=olga)
    assert re.findall(r'href="/organise/(\d+)/"', body(as_user(olga).get("/organise/"))) == [str(mine.pk), str(club.pk)]
    page = body(as_user(carla).get("/organise/"))
    assert re.findall(r'href="/organise/(\d+)/"', page) == [str(club.pk)] and "Owned by olga" in text(page)


def test_the_public_pages_link_to_the_organisers_screens_for_its_organisers_only(started, carla):
    links = (f'href="/organise/{started.pk}/"', f'href="/organise/{started.pk}/rounds/1/"')
    for client, shown in ((as_user(carla), True), (as_user(account("sam")), False), (Client(), False)):
        pages = "".join(body(client.get(path)) for path in (f"/tournaments/{started.pk}/",
                                                            f"/tournaments/{started.pk}/rounds/1/"))
        assert all((link in pages) == shown for link in links)
