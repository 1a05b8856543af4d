"""The public pages: thin views over tournaments.selectors (and web.reads, built on it), so a
page never shows more than the API does: a match's seed, result and replay only once
selectors.outcome_public says so, a tournament's seed once it is finished, never a card."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from tournaments import selectors, standings
from tournaments.models import Match, Player, RatingLadder, Seat, Tournament

from . import brackets, charts, reads, terms

TOURNAMENTS_PAGE = 25
POLL_SECONDS = 5  # a live round's progress is read again this often


@require_safe
def home(request):
    """The front page: tournaments being played, those open for registration, the last ones
    finished, and the top players of each game's main ladder."""
    top = [(ladder, selectors.ladder_leaderboard(ladder, limit=reads.HOME_TOP)) for ladder in reads.main_ladders()]
    return render(request, "web/home.html", {
        "section": "home",
        "live": reads.live_tournaments(),
        "upcoming": reads.upcoming_tournaments(),
        "finished": reads.recent_finished(),
        "top": top,
    })


@require_safe
def ladders(request):
    """Every rating ladder, grouped by game: its system, version and number of rated players."""
    return render(request, "web/ladders.html", {"section": "ladders", "games": reads.ladders_by_game()})


@require_safe
def ladder(request, pk: int):
    """A ladder's leaderboard, 50 lines a page: rank, player, rating (provisional or not),
    rated games and the trend over the last few; ``?q=`` keeps the players whose name holds it."""
    ladder = get_object_or_404(RatingLadder, pk=pk)
    q = request.GET.get("q", "").strip()[:64]
    page = reads.leaderboard_page(ladder, q=q, page=request.GET.get("page"))
    trends = reads.leaderboard_trends(ladder, page.object_list)
    latest = selectors.current_ladder(ladder.slug)
    return render(request, "web/ladder.html", {
        "section": "ladders",
        "ladder": ladder,
        "latest": latest if latest is not None and latest.pk != ladder.pk else None,
        "q": q,
        "page": page,
        "pages": page.paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1),
        "lines": [(line, trends.get(line.player.pk)) for line in page.object_list],
        "trend_games": reads.TREND_GAMES,
    })


@require_safe
def player(request, pk: int):
    """A player: who it is, its rating and rank on each ladder with a chart of its history
    there, its last matches whose outcome is public, and the tournaments it entered."""
    player = get_object_or_404(Player, pk=pk)
    rated = [(rating, charts.rating_chart([(p.games, p.rating) for p in reads.rating_points(rating.ladder, player)]))
             for rating in reads.player_ratings(player)]
    builtin = player.bot_config.get("bot") if player.bot_kind == Player.BotKind.BUILTIN else None
    return render(request, "web/player.html", {
        "section": "ladders",
        "player": player,
        "builtin": builtin,  # public, as the API's ``bot`` field; the rest of bot_config is its owner's
        "rated": rated,
        "matches": [_seen_from(match, player) for match in reads.player_recent_matches(player)],
        "entries": reads.player_entries(player),
    })


def _seen_from(match: Match, player: Player) -> tuple[Match, Seat | None, list[Player]]:
    """A match as a line of the player's page: the match, the player's seat, its opponents."""
    seats = list(match.seats.all())
    mine = next((seat for seat in seats if seat.player_id == player.pk), None)
    return match, mine, [seat.player for seat in seats if seat is not mine]


@require_safe
def tournaments(request):
    """Every tournament, newest first, 25 a page; ``?status=`` keeps those of one status."""
    status = request.GET.get("status", "")
    listed = reads.tournaments_listed()
    if status in Tournament.Status.values:
        listed = listed.filter(status=status)
    else:
        status = ""
    page = Paginator(listed, TOURNAMENTS_PAGE).get_page(request.GET.get("page"))
    return render(request, "web/tournaments.html", {
        "section": "tournaments",
        "status": status,
        "statuses": [(value, terms.TOURNAMENT_STATUSES[value]) for value in Tournament.Status.values],
        "page": page,
        "pages": page.paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1),
    })


@require_safe
def tournament(request, pk: int):
    """A tournament: its settings, its standings with every tie-break and the reason for each
    rank (its entrants, before it starts), the bracket of an elimination format, its rounds,
    and a live round's progress."""
    tournament = get_object_or_404(Tournament.objects.select_related("ladder"), pk=pk)
    started = tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
    progress = reads.rounds_progress(tournament)
    return render(request, "web/tournament.html", {
        "section": "tournaments",
        "tournament": tournament,
        "started": started,
        "seed_public": selectors.tournament_seed_public(tournament),
        "standings": selectors.tournament_standings(tournament, terms.standings_phrases()) if started else None,
        "entries": None if started else reads.tournament_entries(tournament),
        # match points and game score have their own columns
        "tiebreaks": [t for t in tournament.tiebreaks if t not in (standings.MATCH_POINTS, standings.GAME_SCORE)],
        "bracket": brackets.tournament_bracket(tournament) if started else None,
        "has_bracket": tournament.format in terms.BRACKET_FORMATS,
        "rounds": progress,
        **_live(tournament, progress),
    })


def _live(tournament: Tournament, progress: list[reads.RoundProgress]) -> dict:
    """What the live progress fragment shows: the rounds being played, and how many are over
    (the page compares it with the count it was drawn with, to offer a reload)."""
    return {
        "live": tournament.status == Tournament.Status.RUNNING,
        "playing": [rnd for rnd in progress if rnd.status == "playing"],
        "closed": sum(rnd.status == "finished" for rnd in progress),
        "poll_seconds": POLL_SECONDS,
    }


@require_safe
def tournament_progress(request, pk: int):
    """A fragment of the tournament page, polled while it is live: each round being played
    with its tables finished so far, and a notice once more rounds are over than ``?closed=``
    (the count the page was drawn with)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    live = _live(tournament, reads.rounds_progress(tournament))
    try:
        seen = int(request.GET.get("closed", ""))
    except ValueError:
        seen = live["closed"]
    changed = live["closed"] > seen or not live["live"]
    return render(request, "web/_progress.html", {"tournament": tournament, "changed": changed, **live})


def _round_or_404(tournament_pk: int, number: int):
    tournament = get_object_or_404(Tournament, pk=tournament_pk)
    rnd = reads.tournament_round(tournament, number)
    if rnd is None:
        raise Http404(f"{tournament} has no round {number}")
    return tournament, rnd


@require_safe
def round_tables(request, pk: int, number: int):
    """One round: each table with its seated players in turn order, its status and, once its
    outcome is public, each seat's score and place; the players with a bye."""
    tournament, rnd = _round_or_404(pk, number)
    return render(request, "web/round.html", {
        "section": "tournaments",
        "tournament": tournament,
        "round": rnd,
        "tables": [(match, selectors.outcome_public(match)) for match in rnd.matches.all()],
        "byes": reads.round_byes(rnd),
        "numbers": reads.round_numbers(tournament),
    })


@require_safe
def pairings(request, pk: int, number: int):
    """A round's pairings to print for the room: each table's number and its players by seat,
    in large type (the print stylesheet drops everything else)."""
    tournament, rnd = _round_or_404(pk, number)
    return render(request, "web/pairings.html", {
        "section": "tournaments",
        "tournament": tournament,
        "round": rnd,
        "byes": reads.round_byes(rnd),
    })


@require_safe
def match(request, pk: int):
    """A match: its tournament, round and table, its players by seat and its status; once its
    outcome is public, each seat's score, place and forfeit, its seed and a link to its replay
    in the API."""
    match = reads.match_with_seats(pk)
    if match is None:
        raise Http404(f"no match {pk}")
    public = selectors.outcome_public(match)
    return render(request, "web/match.html", {
        "section": "tournaments",
        "match": match,
        "tournament": match.round.tournament,
        "public": public,
        # In duplicate play a finished table waits for its round: say why nothing is shown.
        "held_back": match.status == Match.Status.FINISHED and not public,
    })
