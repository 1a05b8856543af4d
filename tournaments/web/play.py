"""The replay viewer and the play screen: a finished match step by step, and a person's seat at
an online match. Thin views: the selectors say what may be shown, the engine's views what a
seat sees, services.online plays the moves; tables, narration and replays put them in words
and cards."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import json_script
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from tournaments import online_reads, selectors
from tournaments import permissions as rules
from tournaments.errors import ServiceError
from tournaments.models import Match, Seat
from tournaments.services import dispatch, online

from . import cards, replays, tables, terms
from .narration import Teller, amount_choice


class CompactJSON(DjangoJSONEncoder):
    """JSON without the spaces after , and : (a replay's data is read by a script, not a person)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{**kwargs, "separators": (",", ":")})


AMOUNT_BUTTONS = 12  # more amounts to choose from than this: one list and one button, not a row of buttons
STATUS_OF = {"invalid": 400, "forbidden": 403, "not_found": 404, "conflict": 409, "illegal": 422}  # as the API answers


def _match_or_404(pk: int) -> Match:
    return get_object_or_404(Match.objects.select_related("round__tournament").defer("record"), pk=pk)


def _seats(match: Match) -> list[Seat]:
    return list(match.seats.select_related("player").order_by("position"))


def _page(match: Match) -> dict:
    return {"section": "tournaments", "match": match, "tournament": match.round.tournament}


def _number(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


# --- the replay viewer -------------------------------------------------------------------------

@require_safe
def replay(request, pk: int):
    """A finished match, event by event: the step, the event in words and the table as one
    seat saw it (``?seat=``, from 0; the reader's own seat, else the first), or with every hand
    open (``?open=1``); ``?step=`` (from 1, or ``last``) the step to show first. The whole log
    is listed too, each event a link to its step, so the page works without its script. Refused
    until the match's outcome is public: nothing of the deal is shown before."""
    match = _match_or_404(pk)
    seats = _seats(match)
    context = {**_page(match), "seats": seats}
    available, _why = selectors.replay_available(match)
    if not available:
        if match.status != Match.Status.FINISHED:
            context["refusal"] = _("This match is not over: its replay opens when it is.")
        else:
            context["refusal"] = _("Every table of this round plays the same cards: the replay opens when the whole "
                                   "round is over.")
        return render(request, "web/replay.html", context, status=409)
    record = Match.objects.values_list("record", flat=True).get(pk=match.pk)
    if record is None:
        context["refusal"] = _("The result was reported by the players: there is no replay.")
        return render(request, "web/replay.html", context, status=404)

    own = next((seat.position for seat in seats if seat.player.owner_id and seat.player.owner_id == request.user.pk),
               0)
    seat = min(max(0, _number(request.GET.get("seat"), own)), len(seats) - 1)
    open_hands = request.GET.get("open") == "1"
    wanted = request.GET.get("step", "1")
    step = None if wanted == "last" else _number(wanted, 1)
    part = replays.part(record, [str(s.player) for s in seats], seat=seat, open_hands=open_hands, step=step)
    shown = part.steps[min(max(part.last if step is None else step, part.first), part.last) - part.first]
    return render(request, "web/replay.html", {
        **context,
        "part": part,
        "step": shown,
        "seat": seat,
        "open_hands": open_hands,
        "table": tables.drawn(part.tables[shown.table], part.deck),
        "data": json_script(part.data(), "replay-data", encoder=CompactJSON),
        "query": f"seat={seat}" + ("&open=1" if open_hands else ""),
        "previous_part": part.first - 1 if part.first > 1 else None,
        "next_part": part.last + 1 if part.last < part.total else None,
    })


# --- the play screen ---------------------------------------------------------------------------

def _refused(request, match: Match, message: str, status: int):
    return render(request, "web/play.html", {**_page(match), "refusal": message}, status=status)


def _own_seat(request, pk: int, position: int):
    """(match, seat, None), or (match, None, the refusal page): the seat must exist and be one
    the signed-in person sees (tournaments.permissions.sees_seat, as the API's seat view: her
    own, played through the API; never a bot's the service plays, hers included)."""
    match = _match_or_404(pk)
    seat = match.seats.select_related("player").filter(position=position).first()
    if seat is None:
        return match, None, _refused(request, match, _("This match has no such seat."), 404)
    if not rules.sees_seat(rules.Caller.session(request.user), seat.player):
        if not seat.player.plays_online:
            return match, None, _refused(request, match, _("This seat is played by the service, a bot: nobody sees "
                                                           "its cards while the match is played, its owner neither."),
                                         403)
        return match, None, _refused(request, match, _("This seat is not yours: only its player's owner sees its "
                                                       "cards."), 403)
    return match, seat, None


def _not_online(request, match: Match, exc: ServiceError):
    """services.online refuses a match not played online (people at a real table, or bots)."""
    return _refused(request, match, _("This match is not played online: there is no seat to play here."),
                    STATUS_OF.get(exc.code, 409))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def play(request, pk: int, position: int):
    """A person's seat at an online match: their cards, the table as they see it, whose turn it
    is, their legal actions as buttons and the time left for the move; the result and a link
    to the replay once it is over. The page's script follows the seat's event stream and posts
    the actions to the API; without it, the buttons post here and the page is drawn again."""
    match, seat, refusal = _own_seat(request, pk, position)
    if refusal:
        return refusal
    refused = None
    if request.method == "POST":
        refused = _act(request, match, position)
        if refused is None:  # moved: drawn again from a GET, so a reload never posts twice
            return redirect("web:play", pk=match.pk, position=position)
    try:
        state = _state(match, seat)
    except ServiceError as exc:
        return _not_online(request, match, exc)
    return render(request, "web/play.html", {**_page(match), **state, "error": refused and refused.message},
                  status=STATUS_OF.get(refused.code, 400) if refused else 200)


@login_required
@require_safe
def play_state(request, pk: int, position: int):
    """The changing part of the play screen alone (the table, the actions, the clock, the
    result): the page's script draws it again after each event of the seat's stream."""
    match, seat, refusal = _own_seat(request, pk, position)
    if refusal:
        return refusal
    try:
        state = _state(match, seat)
    except ServiceError as exc:
        return _not_online(request, match, exc)
    return render(request, "web/_play_state.html", {**_page(match), **state})


def _act(request, match: Match, position: int) -> ServiceError | None:
    """The form's action, played as the API plays it (services.online.seat_act, the same
    rules, the same Idempotency-Key); None when done, else the service's refusal."""
    try:
        action = json.loads(request.POST.get("action", ""))
    except ValueError:
        action = None  # refused by the service, which says what an action is
    caller = rules.Caller.session(request.user)
    answers = request.POST.get("actions", "")  # the decision the form showed
    try:
        acted = online.seat_act(match_id=match.pk, position=position, action=action,
                                idempotency_key=request.POST.get("key", "")[:64], actor=request.user,
                                may_act=lambda player: rules.acts_for(caller, player),
                                answers=int(answers) if answers.isascii() and answers.isdigit() and len(answers) <= 7
                                else None)
    except online.LateMove as exc:
        dispatch.send_progress(exc.progress)  # the timeout policy it applied
        return exc
    except ServiceError as exc:
        return exc
    dispatch.send_progress(acted.progress)
    return None


def _state(match: Match, seat: Seat) -> dict:
    """What the play screen shows of the seat now (online_reads.seat_view: the engine's
    view(seat)). Raises ServiceError for a match not played online."""
    tournament = match.round.tournament
    now = online_reads.seat_view(match=match, position=seat.position)
    seats = _seats(match)
    view = now["view"]
    deck = cards.deck_of(tournament.game, tournament.options)
    teller = Teller(tournament.game, deck)
    mine = now["waiting_for"] == seat.position and not now["forfeited"]
    over = now["status"] == Match.Status.FINISHED
    public = over and selectors.outcome_public(match)
    table = tables.layout(view, [str(s.player) for s in seats])
    table["seats"].sort(key=lambda one: not one["you"])  # the reader's own seat first, next to the actions
    deadline = now["deadline_at"]
    return {
        "seat": seat,
        "seats": seats,
        "now": now,
        "table": tables.drawn(table, deck),
        # ISO times the script reads (the clock counts down from the server's time, not the browser's)
        "deadline": deadline.isoformat(timespec="milliseconds") if deadline else "",
        "server_now": timezone.now().isoformat(timespec="milliseconds"),
        "choices": _choices(teller, view.get("legal_actions", [])) if mine else [],
        "your_turn": mine,
        "waiting_for": now["waiting_for"],
        "waiting_label": tables.seat_label(now["waiting_for"]) if now["waiting_for"] is not None else "",
        "over": over,
        "public": public,
        "announce": _announce(now, seat, public, seats),
        "key": f"web-{match.pk}-{seat.position}-{now['actions']}",  # one key per move: a second click repeats it
        "state_url": reverse("web:play-state", args=[match.pk, seat.position]),
        "events_url": f"/api/matches/{match.pk}/seats/{seat.position}/events/",
        "actions_url": f"/api/matches/{match.pk}/seats/{seat.position}/actions/",
    }


def _announce(now: dict, seat: Seat, public: bool, seats: list[Seat]) -> str:
    """The one sentence a screen reader hears when it changes: your turn, whose turn, the end."""
    if now["status"] == Match.Status.FINISHED:
        mine = next((s for s in seats if s.position == seat.position), None)
        if public and mine is not None and mine.place:
            return _("The match is over: you finished %(place)s.") % {"place": terms.ordinal(mine.place)}
        return _("The match is over.")
    if now["status"] == Match.Status.PENDING:
        return _("The match has not started yet.")
    if now["forfeited"]:
        return _("Your seat was forfeited: the fallback bot plays it.")
    if now["waiting_for"] == seat.position:
        return _("Your turn.")
    if now["waiting_for"] is not None:
        return _("Waiting for %(seat)s.") % {"seat": tables.seat_label(now["waiting_for"])}
    return _("The other seats are playing.")


def _choices(teller: Teller, legal: list[dict]) -> list[dict]:
    """The legal actions as the screen offers them, in the engine's order: a button each, but
    many amounts of one action (a stake of 1 to 50) as one list with one button."""
    groups: list[tuple[tuple, list[dict]]] = []
    for action in legal:
        key = (action.get("type"), tuple(sorted((k, json.dumps(v)) for k, v in action.items() if k != "amount")),
               "amount" in action)
        if groups and groups[-1][0] == key:
            groups[-1][1].append(action)
        else:
            groups.append((key, [action]))
    choices = []
    for (kind, _rest, has_amount), actions in groups:
        label = amount_choice(kind) if has_amount else None
        if label and len(actions) > AMOUNT_BUTTONS:
            choices.append({"label": label, "options": [(json.dumps(a), a["amount"]) for a in actions]})
        else:
            choices += [{"label": teller.action(a), "value": json.dumps(a)} for a in actions]
    return choices
