"""Signing in, and the organisers' screens: thin views over the services, each action allowed
exactly as the API allows it (tournaments.permissions: ``organises``, ``owns``,
``may_enter``, ``may_withdraw``, ``reports_for``). A person at the browser acts with a
session, which may do everything its user may, as the API treats a session
(tournaments/api/auth.py).

A refusal of the rules is a 403 page in the site's layout saying why; a refusal of the
service (``ServiceError``) is shown next to the field it names, with the API's status (409
for a change the object's state no longer allows). Every write is one service call, or two
inside one transaction (a new player and its entry), so nothing is ever half written.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import login as auth_login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournaments import permissions, selectors
from tournaments.api.throttles import ScopeThrottle
from tournaments.models import ApiToken, Entry, Match, Player, RatingLadder, ResultSubmission, Tournament
from tournaments.services import ServiceError, accounts, dispatch, organisers, players, results, tokens, tournaments
from tournaments.signin import SignInRefused

from . import forms, reads, terms

FORM_METHODS = ["GET", "HEAD", "POST"]
# A service's refusal, by its code, as the API answers it (tournaments/api/errors.py).
STATUS = {"conflict": 409, "forbidden": 403, "not_found": 404}
NOT_YET_STARTED = (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
CANDIDATES = 200  # existing players offered by name when entering one


def caller(request) -> permissions.Caller:
    """The person at the browser."""
    return permissions.Caller.session(request.user)


def require(allowed: bool, why: str) -> None:
    """403 with the reason, unless ``allowed`` (tournaments.permissions decides)."""
    if not allowed:
        raise PermissionDenied(why)


def status_of(exc: ServiceError) -> int:
    return STATUS.get(exc.code, 400)


def refused(request, why: str, status: int = 403, *, lang: str = "") -> HttpResponse:
    """A refusal in the site's layout, saying why (``lang``: "en" for a service's own message)."""
    return render(request, "web/organise/refused.html",
                  {"section": "organise", "why": why, "status": status, "lang": lang}, status=status)


def signed_in(view):
    """Signed-in users only (anybody else is sent to sign in, and back); a refusal of the
    rules is a 403 page in the site's layout saying why."""

    @functools.wraps(view)
    def screen(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except PermissionDenied as exc:
            return refused(request, str(exc) or gettext("You may not do this."))

    return login_required(screen)


# --- budgets: the API's, shared ------------------------------------------------------------------

@dataclass(frozen=True)
class _Budgeted:
    """What the API's ScopeThrottle reads of a view: the name of its budget, and the methods
    it counts (attempts, not reads)."""

    throttle_scope: str
    throttle_scope_methods: tuple[str, ...] = ("POST",)


def over_budget(request, scope: str) -> int | None:
    """Seconds to wait when this request is beyond the API's budget ``scope`` (``accounts``:
    API_ACCOUNTS_RATE, ``tokens``: API_TOKENS_RATE; sign-in attempts have their own,
    tournaments/signin.py), counted
    together with the API's own requests, per address or account; None when within it."""
    throttle = ScopeThrottle()
    if throttle.allow_request(request, _Budgeted(scope)):
        return None
    return max(1, math.ceil(throttle.wait() or throttle.duration))


def too_many(wait: int, by: str = "address") -> str:
    """What a refusal beyond a budget says: ``by`` "address" (this caller's attempts) or
    "account" (the attempts at the account signed in to, from anywhere)."""
    minutes = math.ceil(wait / 60)
    if by == "account":
        return ngettext("Too many attempts to sign in to this account: try again in %(n)s minute.",
                        "Too many attempts to sign in to this account: try again in %(n)s minutes.",
                        minutes) % {"n": minutes}
    return ngettext("Too many attempts from here: try again in %(n)s minute.",
                    "Too many attempts from here: try again in %(n)s minutes.", minutes) % {"n": minutes}


def throttled(response: HttpResponse, wait: int) -> HttpResponse:
    response.status_code = 429
    response["Retry-After"] = str(wait)
    return response


def next_url(request) -> str:
    """Where to go back to after signing in or up: ``next``, when it is on this site."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    if url and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()},
                                               require_https=request.is_secure()):
        return url
    return ""


# --- accounts -------------------------------------------------------------------------------------

class SignInView(auth_views.LoginView):
    """Sign in with a username and password (Django's LoginView: it goes back to ``next`` only
    on this site). Attempts count against the sign-in budgets per address and per account
    (tournaments/signin.py), together with every other way to present a password."""

    template_name = "web/account/sign_in.html"
    authentication_form = forms.SignInForm
    extra_context = {"section": "account"}

    def post(self, request, *args, **kwargs):
        try:
            response = super().post(request, *args, **kwargs)
        except SignInRefused as refusal:  # refused before the password is even looked at
            context = self.get_context_data(form=self.get_form_class()(request),
                                            refused=too_many(refusal.wait, refusal.by))
            return throttled(self.render_to_response(context), refusal.wait)
        if response.status_code == 200:  # the form again: a wrong username or password
            response.status_code = 400
        return response

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, gettext("Signed in as %(name)s.") % {"name": form.get_user().get_username()})
        return response


class SignOutView(auth_views.LogoutView):
    """Sign out: a POST with its CSRF token (Django's LogoutView refuses a GET with 405)."""

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        messages.info(request, gettext("You are signed out."))
        return response


@require_http_methods(FORM_METHODS)
def sign_up(request):
    """Sign up: a new account, by the rules of ``POST /api/accounts/`` (services.accounts) and
    within its budget per address (API_ACCOUNTS_RATE); then signed in, and back to ``next``."""
    form = forms.SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST":
        wait = over_budget(request, "accounts")
        if wait is not None:
            context = {"section": "account", "form": forms.SignUpForm(), "next": next_url(request),
                       "refused": too_many(wait)}
            return throttled(render(request, "web/account/sign_up.html", context), wait)
        status = 400
        if form.passes():
            data = form.cleaned_data
            try:
                user = accounts.account_create(username=data["username"], password=data["password"],
                                               email=data["email"])
            except ServiceError as exc:
                form.refuse(exc)
                status = status_of(exc)
            else:
                auth_login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(request, gettext("Welcome, %(name)s: your account is made and you are signed in.")
                                 % {"name": user.get_username()})
                return redirect(next_url(request) or settings.LOGIN_REDIRECT_URL)
    return render(request, "web/account/sign_up.html",
                  {"section": "account", "form": form, "next": next_url(request)}, status=status)


@never_cache  # a new token is shown on this page once
@signed_in
@require_http_methods(FORM_METHODS)
def api_tokens(request):
    """Your API tokens: each one's name, start, scopes, bot, dates and whether it is live, with
    a button to revoke it; and a form to make one, whose secret is shown this once
    (services.tokens; the API's budget for the tokens endpoint, API_TOKENS_RATE, applies)."""
    form = forms.TokenForm(request.POST or None, user=request.user)
    made, status = "", 200
    if request.method == "POST":
        wait = over_budget(request, "tokens")
        if wait is not None:
            return throttled(_tokens_page(request, forms.TokenForm(user=request.user), refused=too_many(wait)), wait)
        status = 400
        if form.passes():
            data = form.cleaned_data
            try:
                _, made = tokens.token_create(user=request.user, name=data["name"], scopes=data["scopes"],
                                              bot=data["bot"], expires_at=data["expires_at"])
            except ServiceError as exc:
                form.refuse(exc)
                status = status_of(exc)
            else:
                form, status = forms.TokenForm(user=request.user), 200
    return _tokens_page(request, form, made=made, status=status)


def _tokens_page(request, form, *, made: str = "", refused: str = "", status: int = 200) -> HttpResponse:
    rows = ApiToken.objects.filter(user=request.user).select_related("bot").order_by("revoked_at", "-created_at")
    return render(request, "web/account/tokens.html", {
        "section": "account", "form": form, "made": made, "refused": refused, "tokens": rows,
        "prefix": tokens.PREFIX,
    }, status=status)


@signed_in
@require_POST
def api_token_revoke(request, pk: int):
    """Revoke one of your tokens: from now on it authenticates nobody."""
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)  # someone else's: not found, as in the API
    tokens.token_revoke(token=token)
    messages.success(request, gettext("The token %(name)s is revoked.") % {"name": token.name})
    return redirect("web:tokens")


# --- tournaments ---------------------------------------------------------------------------------

def _organised(request, pk: int) -> tuple[Tournament, permissions.Caller]:
    tournament = get_object_or_404(Tournament.objects.select_related("ladder", "owner"), pk=pk)
    who = caller(request)
    require(permissions.organises(who, tournament), gettext("Only the tournament's organisers may do this."))
    return tournament, who


def _ladders(who: permissions.Caller, keep: int | None = None):
    """The ladders a tournament may be rated on by ``who`` (permissions.may_use_ladder: those it
    organises; staff, all), their latest versions; ``keep``: the tournament's own, kept."""
    ladders = reads.current_ladders()
    if not who.staff:
        ladders = ladders.filter(Q(owner=who.user) | Q(organisers=who.user))
    chosen = Q(pk__in=ladders.values("pk"))
    if keep is not None:
        chosen |= Q(pk=keep)
    return RatingLadder.objects.filter(chosen).order_by("game", "name", "-version")


@signed_in
@require_safe
def my_tournaments(request):
    """My tournaments: those the user owns or co-organises (a league division: its league's
    organisers), newest first, each with its status, game, format, entrants and the user's
    part in it."""
    mine = Tournament.objects.filter(permissions.organised_by(request.user)).values("pk")
    listed = reads.tournaments_listed().filter(pk__in=mine).select_related("owner")
    return render(request, "web/organise/list.html", {"section": "organise", "tournaments": listed})


@signed_in
@require_http_methods(FORM_METHODS)
def tournament_new(request):
    """A new tournament: every setting it is made with, the game's options from the engine, the
    format's settings from the format; each refusal of the service next to its field."""
    who = caller(request)
    form = forms.TournamentForm(request.POST or None, ladders=_ladders(who))
    status = 200
    if request.method == "POST":
        require(who.can(permissions.ORGANISE), gettext("Creating a tournament needs the organise scope."))
        status = 400
        if form.passes():
            settings_ = form.settings()
            require(settings_["ladder"] is None or permissions.may_use_ladder(who, settings_["ladder"]),
                    gettext("Only the ladder's organisers rate tournaments on it."))
            try:
                tournament = tournaments.tournament_create(actor=request.user, owner=request.user, **settings_)
            except ServiceError as exc:
                form.refuse(exc)
                status = status_of(exc)
            else:
                messages.success(request, gettext("%(name)s is made: now enter its players.") % {"name": tournament})
                return redirect("web:organise-tournament", tournament.pk)
    return render(request, "web/organise/tournament_form.html",
                  {"section": "organise", "form": form, "tournament": None}, status=status)


@signed_in
@require_http_methods(FORM_METHODS)
def tournament_edit(request, pk: int):
    """Change a tournament before it starts (services.tournaments.tournament_update): the same
    form as a new one, filled in; only what changed is sent. Once started: 409, saying why."""
    tournament, who = _organised(request, pk)
    if request.method != "POST" and tournament.status not in NOT_YET_STARTED:
        return refused(request, gettext("%(name)s has started: it changes only before it starts.")
                       % {"name": tournament}, status=409)
    form = forms.TournamentForm(request.POST or None, ladders=_ladders(who, keep=tournament.ladder_id),
                                instance=tournament)
    status = 200
    if request.method == "POST":
        status = 400
        if form.passes():
            changes = form.changes()
            if changes.get("ladder") is not None:
                require(permissions.may_use_ladder(who, changes["ladder"]),
                        gettext("Only the ladder's organisers rate tournaments on it."))
            try:
                tournaments.tournament_update(tournament=tournament, actor=request.user, **changes)
            except ServiceError as exc:
                if exc.code == "conflict" and exc.field in ("status", "season"):
                    return refused(request, exc.message, status=409, lang="en")
                form.refuse(exc)
                status = status_of(exc)
            else:
                messages.success(request, gettext("Your changes are saved.") if changes
                                 else gettext("Nothing changed."))
                return redirect("web:organise-tournament", tournament.pk)
    return render(request, "web/organise/tournament_form.html",
                  {"section": "organise", "form": form, "tournament": tournament}, status=status)


@signed_in
@require_http_methods(FORM_METHODS)
def tournament_delete(request, pk: int):
    """Delete a tournament not yet started, with its entries (its owner): a page asking to be
    sure, then the deletion. Once started: 409 (cancel it instead)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    require(permissions.owns(caller(request), tournament), gettext("Only the tournament's owner deletes it."))
    if request.method == "POST":
        try:
            tournaments.tournament_delete(tournament=tournament, actor=request.user)
        except ServiceError as exc:
            return refused(request, exc.message, status=status_of(exc), lang="en")
        messages.success(request, gettext("%(name)s is deleted.") % {"name": tournament})
        return redirect("web:organise")
    return render(request, "web/organise/confirm.html", {
        "section": "organise", "tournament": tournament, "action": "delete",
        "url": reverse("web:organise-delete", args=[tournament.pk]),
    })


@signed_in
@require_http_methods(FORM_METHODS)
def tournament_cancel(request, pk: int):
    """Cancel a tournament (its organisers): its matches are no longer played or reported. A
    page asking to be sure, then the cancellation; 409 once finished or cancelled."""
    tournament, _ = _organised(request, pk)
    if request.method == "POST":
        try:
            tournaments.tournament_cancel(tournament=tournament, actor=request.user)
        except ServiceError as exc:
            return refused(request, exc.message, status=status_of(exc), lang="en")
        messages.success(request, gettext("%(name)s is cancelled.") % {"name": tournament})
        return redirect("web:organise-tournament", tournament.pk)
    return render(request, "web/organise/confirm.html", {
        "section": "organise", "tournament": tournament, "action": "cancel",
        "url": reverse("web:organise-cancel", args=[tournament.pk]),
    })


@signed_in
@require_safe
def tournament_organise(request, pk: int):
    """One tournament, for its organisers: its settings, with links to change or delete it; its
    entrants, each with a button to withdraw it; forms to enter a person, a built-in bot or a
    player that exists; the start; its co-organisers; and its rounds, each with its pairings
    to print and its results to report."""
    tournament, _ = _organised(request, pk)
    return _tournament_page(request, tournament)


def _tournament_page(request, tournament: Tournament, *, status: int = 200, problems: dict | None = None,
                     **bound) -> HttpResponse:
    """The organiser's page of ``tournament``; ``bound``: a refused form to show again with its
    errors (``person``, ``bot``, ``existing``, ``organiser``); ``problems``: a refused button's
    reason, by button (``start``, ``withdraw-<entry>``)."""
    who = caller(request)
    problems = problems or {}
    entries = list(reads.tournament_entries(tournament))
    for entry in entries:
        entry.problem = problems.get(f"withdraw-{entry.pk}", "")
    entered = [entry.player_id for entry in entries]
    game_bots = sorted(players.builtin_bots(tournament.game))
    candidates = (Player.objects.filter(active=True)
                  .filter(Q(owner=request.user) | Q(bot_kind=Player.BotKind.BUILTIN, bot_config__bot__in=game_bots))
                  .exclude(pk__in=entered).order_by("name")[:CANDIDATES])
    return render(request, "web/organise/tournament.html", {
        "section": "organise",
        "tournament": tournament,
        "open": tournament.status in NOT_YET_STARTED,
        # A refused entry is shown with its reason even once entries have closed (a page
        # left open while another organiser started the tournament).
        "entering": tournament.status in NOT_YET_STARTED or any(bound.get(k) for k in ("person", "bot", "existing")),
        "over": tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED),
        "owner": permissions.owns(who, tournament),
        "entries": entries,
        "active": sum(entry.active for entry in entries),
        "person_form": bound.get("person") or forms.PersonForm(),
        "bot_form": bound.get("bot") or forms.BotForm(game=tournament.game),
        "existing_form": bound.get("existing") or forms.ExistingPlayerForm(),
        "organiser_form": bound.get("organiser") or forms.OrganiserForm(),
        "candidates": candidates,
        "organisers": tournament.organisers.order_by("username"),
        "rounds": reads.rounds_progress(tournament),
        "options": sorted(tournament.options.items()),
        "format_config": sorted(tournament.format_config.items()),
        "tiebreaks": [terms.TIEBREAK_NAMES.get(t, t) for t in tournament.tiebreaks],
        "confirmation": forms.CONFIRMATIONS.get(tournament.confirmation, tournament.confirmation),
        "problems": problems,
    }, status=status)


@signed_in
@require_POST
def tournament_start(request, pk: int):
    """Start: registration closes and round 1 is made (services.tournaments.tournament_start);
    its bot tables go to the workers, as the API's start sends them."""
    tournament, _ = _organised(request, pk)
    try:
        tournament, progress = tournaments.tournament_start(tournament=tournament, actor=request.user)
    except ServiceError as exc:
        return _tournament_page(request, tournament, status=status_of(exc), problems={"start": exc.message})
    dispatch.send_progress(progress)
    messages.success(request, gettext("%(name)s has started: round 1 is made.") % {"name": tournament})
    return redirect("web:organise-tournament", tournament.pk)


def _enter(request, tournament: Tournament, form, make) -> ServiceError | None:
    """Make a player (``make()``, a services.players call) and enter it, in one transaction:
    a refused entry leaves no player behind. None when done; else the refusal, put on the
    form."""
    try:
        with transaction.atomic():
            entry = tournaments.entry_add(tournament=tournament, player=make(), actor=request.user)
    except ServiceError as exc:
        form.refuse(exc)
        return exc
    messages.success(request, gettext("%(player)s is entered.") % {"player": entry.player})
    return None


ENTERS = gettext_lazy("Organisers enter built-in bots and their own players.")


def _entering(request, pk: int, slot: str, form_for, planned, make, refusal) -> HttpResponse:
    """Every "enter a player" form: the form checked, the rule for entering asked of the player
    about to be entered (``planned``, from the form's data), then the player made (or found)
    and entered in one transaction (``make``); back to the entrants, or the page again with the
    form (``slot``) and its errors."""
    tournament, who = _organised(request, pk)
    form = form_for(tournament)
    if not form.passes():
        return _tournament_page(request, tournament, status=400, **{slot: form})
    data = form.cleaned_data
    require(permissions.may_enter(who, tournament, planned(data)), str(refusal))
    problem = _enter(request, tournament, form, lambda: make(data))
    if problem is None:
        return redirect(reverse("web:organise-tournament", args=[tournament.pk]) + "#entrants")
    return _tournament_page(request, tournament, status=status_of(problem), **{slot: form})


@signed_in
@require_POST
def enter_person(request, pk: int):
    """Enter a person: a new player of the organiser's (who then acts for it at its table,
    reporting its results), entered at once."""
    return _entering(
        request, pk, "person", lambda tournament: forms.PersonForm(request.POST),
        planned=lambda data: Player(kind=Player.Kind.PERSON, owner=request.user),
        make=lambda data: players.player_create(name=data["name"], display_name=data["display_name"],
                                                kind=Player.Kind.PERSON, owner=request.user),
        refusal=ENTERS)


@signed_in
@require_POST
def enter_bot(request, pk: int):
    """Enter a built-in bot: a new bot player of the organiser's playing the chosen built-in
    bot, entered at once."""
    return _entering(
        request, pk, "bot", lambda tournament: forms.BotForm(request.POST, game=tournament.game),
        planned=lambda data: Player(kind=Player.Kind.BOT, bot_kind=Player.BotKind.BUILTIN, owner=request.user),
        make=lambda data: players.player_create(name=data["name"], display_name=data["name"], kind=Player.Kind.BOT,
                                                bot_kind=Player.BotKind.BUILTIN, bot_config={"bot": data["bot"]},
                                                owner=request.user),
        refusal=ENTERS)


@signed_in
@require_POST
def enter_existing(request, pk: int):
    """Enter a player that exists, by its handle: a built-in bot, or one of the organiser's own
    players (nobody enters somebody else's person or external bot: 403)."""
    return _entering(
        request, pk, "existing", lambda tournament: forms.ExistingPlayerForm(request.POST),
        planned=lambda data: data["player"], make=lambda data: data["player"],
        refusal=gettext_lazy("Organisers enter built-in bots and their own players; a person or an external bot "
                             "is entered by its owner, where entry is open."))


@signed_in
@require_POST
def entry_withdraw(request, pk: int, entry: int):
    """Withdraw an entrant (an organiser, or the player's owner): from the rounds after the
    current one; rounds made ahead are made again without it, and sent as the API sends them."""
    tournament = get_object_or_404(Tournament, pk=pk)
    entry = get_object_or_404(Entry.objects.select_related("player"), pk=entry, tournament=tournament)
    require(permissions.may_withdraw(caller(request), tournament, entry.player),
            gettext("An organiser, or the player's owner, withdraws an entrant."))
    try:
        entry, progress = tournaments.entry_withdraw(entry=entry, actor=request.user)
    except ServiceError as exc:
        if not permissions.organises(caller(request), tournament):
            return refused(request, exc.message, status=status_of(exc), lang="en")
        return _tournament_page(request, tournament, status=status_of(exc),
                                problems={f"withdraw-{entry.pk}": exc.message})
    dispatch.send_progress(progress)
    messages.success(request, gettext("%(player)s is withdrawn.") % {"player": entry.player})
    if not permissions.organises(caller(request), tournament):
        return redirect("web:tournament", tournament.pk)
    return redirect(reverse("web:organise-tournament", args=[tournament.pk]) + "#entrants")


@signed_in
@require_POST
def organiser_add(request, pk: int):
    """Name a co-organiser, by username (the owner only, as ``POST
    /api/tournaments/{id}/organisers/``)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    require(permissions.owns(caller(request), tournament), gettext("Only the owner names co-organisers."))
    form = forms.OrganiserForm(request.POST)
    if form.passes():
        username = form.cleaned_data["username"]
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is not None:
            organisers.organiser_add(event=tournament, user=user)
            messages.success(request, gettext("%(name)s now organises %(tournament)s too.")
                             % {"name": user.get_username(), "tournament": tournament})
            return redirect(reverse("web:organise-tournament", args=[tournament.pk]) + "#organisers")
        form.add_error("username", gettext("Nobody has the username %(name)s.") % {"name": username})
    return _tournament_page(request, tournament, status=400, organiser=form)


@signed_in
@require_POST
def organiser_remove(request, pk: int, user: int):
    """Remove a co-organiser (the owner only)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    require(permissions.owns(caller(request), tournament), gettext("Only the owner names co-organisers."))
    removed = get_object_or_404(tournament.organisers, pk=user)
    organisers.organiser_remove(event=tournament, user=removed)  # and their webhooks on it
    messages.success(request, gettext("%(name)s no longer organises %(tournament)s.")
                     % {"name": removed.get_username(), "tournament": tournament})
    return redirect(reverse("web:organise-tournament", args=[tournament.pk]) + "#organisers")


# --- results of tables played in the room ------------------------------------------------------------

@dataclass
class TableLine:
    """One table of a round as the results page shows it: the match, whether the caller may
    report or confirm its result, whether people play it (a bots' table the workers play), its
    public outcome, the result awaiting confirmation and the last rejected one, and the forms."""

    match: Match
    may_report: bool
    reported: bool
    public: bool
    pending: ResultSubmission | None
    may_confirm: bool
    rejected: ResultSubmission | None
    form: forms.ResultForm | None
    reject_form: forms.RejectForm | None
    seats: list = dataclasses.field(default_factory=list)  # (seat, reported score, reported place)
    problem: str = ""


@signed_in
@require_safe
def round_results(request, pk: int, number: int):
    """A round's tables, for reporting and confirming the results of tables played in the
    room: each table with its seats, and a form for each seat's score (and place) where no
    result is recorded or awaiting confirmation; a result awaiting confirmation with its
    confirm button (for whom the tournament's ``confirmation`` lets confirm it) and its reject
    form. For the tournament's organisers and the owners of players seated in the round (who
    see their own tables' forms)."""
    return _round_page(request, pk, number)


def _round_page(request, pk: int, number: int, *, match: int | None = None, form=None, reject_form=None,
                problem: str = "", status: int = 200) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    rnd = reads.tournament_round(tournament, number)
    if rnd is None:
        raise Http404(f"{tournament} has no round {number}")
    who = caller(request)
    organiser = permissions.organises(who, tournament)
    matches = list(rnd.matches.all())
    submissions = {}
    for submission in (ResultSubmission.objects.filter(match__in=matches).select_related("submitted_by")
                       .order_by("match_id", "version")):
        submissions.setdefault(submission.match_id, {})[submission.status] = submission  # the latest of each
    lines = []
    for table in matches:
        may = organiser or permissions.reports_for(who, table)
        reported = not tournament.online and any(seat.player.plays_online for seat in table.seats.all())
        # (A bots' table is played by the workers; online, people play through the API.)
        mine = submissions.get(table.pk, {})
        pending = mine.get(ResultSubmission.Status.PENDING)
        seats = list(table.seats.all())
        reported_scores = list(pending.scores) if pending else [None] * len(seats)
        reported_places = list(pending.places) if pending else [None] * len(seats)
        open_ = (may and reported and table.status != Match.Status.FINISHED
                 and tournament.status == Tournament.Status.RUNNING)
        lines.append(TableLine(
            match=table, may_report=may, reported=reported, public=selectors.outcome_public(table),
            pending=pending, rejected=mine.get(ResultSubmission.Status.REJECTED),
            may_confirm=pending is not None and may and results.confirm_refusal(
                tournament, pending, request.user, organiser=organiser) is None,
            form=(form if table.pk == match and form is not None else forms.ResultForm(match=table))
            if open_ and pending is None else None,
            reject_form=(reject_form if table.pk == match and reject_form is not None
                         else forms.RejectForm(submission=pending)) if open_ and pending is not None else None,
            seats=[(seat, reported_scores[seat.position], reported_places[seat.position]) for seat in seats],
            problem=problem if table.pk == match else "",
        ))
    require(organiser or any(line.may_report for line in lines),
            gettext("Only the tournament's organisers and the players seated at a table report its result."))
    return render(request, "web/organise/round.html", {
        "section": "organise", "tournament": tournament, "round": rnd, "lines": lines, "organiser": organiser,
        "numbers": reads.round_numbers(tournament), "byes": reads.round_byes(rnd),
    }, status=status)


def _back_to(match: Match) -> str:
    return reverse("web:organise-round", args=[match.round.tournament_id, match.round.number]) + f"#table-{match.table}"


def _counted(request, match: Match, progress, said: str) -> HttpResponse:
    """After a table's result counted (``said``: the message saying so): its round's bot
    tables, and the next round's, sent as the API sends them; then, for an organiser, the next
    round's results page when the result closed its round and made the next; the standings
    when it finished the tournament; else back to the table."""
    dispatch.send_progress(progress)
    messages.success(request, said % {"n": match.table})
    tournament = match.round.tournament
    if any(t.pk == tournament.pk for t in progress.finished):
        messages.info(request, gettext("%(name)s is over: here are its final standings.") % {"name": tournament})
        return redirect(reverse("web:tournament", args=[tournament.pk]) + "#standings-heading")
    made = sorted(r.number for r in progress.made if r.tournament_id == tournament.pk)
    if made and permissions.organises(caller(request), tournament):
        messages.info(request, gettext("Round %(n)s is over: here are the tables of round %(next)s.")
                      % {"n": match.round.number, "next": made[0]})
        return redirect("web:organise-round", tournament.pk, made[0])
    return redirect(_back_to(match))


@signed_in
@require_POST
def result_report(request, match: int):
    """Report a table's result (an organiser, or the owner of a player seated there): it counts
    at once, or awaits confirmation, as the tournament's ``confirmation`` says
    (services.results.result_submit)."""
    match = get_object_or_404(Match.objects.select_related("round__tournament"), pk=match)
    who = caller(request)
    require(permissions.reports_for(who, match),
            gettext("An organiser, or the owner of a player seated at the table, reports its result."))
    form = forms.ResultForm(request.POST, match=match)
    status = 400
    if form.passes():
        scores, places = form.result()
        tournament = match.round.tournament
        try:
            reported = results.result_submit(match=match, scores=scores, places=places, user=request.user,
                                             organiser=permissions.organises(who, tournament))
        except ServiceError as exc:
            form.refuse(exc)
            status = status_of(exc)
        else:
            if reported.submission.status == ResultSubmission.Status.CONFIRMED:
                return _counted(request, match, reported.progress,
                                gettext("Table %(n)s: the result is reported and counts in the standings.")
                                if reported.created else gettext("Table %(n)s: this result counts in the standings."))
            if not reported.created:
                said = gettext("Table %(n)s: this result was reported already.")
            elif tournament.confirmation == Tournament.Confirmation.ORGANISER:
                said = gettext("Table %(n)s: the result is reported; an organiser confirms it.")
            else:
                said = gettext("Table %(n)s: the result is reported; someone else confirms it.")
            messages.success(request, said % {"n": match.table})
            return redirect(_back_to(match))
    return _round_page(request, match.round.tournament_id, match.round.number, match=match.pk, form=form,
                       status=status)


def _submission(request, pk: int) -> ResultSubmission:
    submission = get_object_or_404(ResultSubmission.objects.select_related("match__round__tournament"), pk=pk)
    require(permissions.reports_for(caller(request), submission.match),
            gettext("An organiser, or the owner of a player seated at the table, confirms or rejects its result."))
    return submission


@signed_in
@require_POST
def result_confirm(request, submission: int):
    """Confirm a reported result (whom the tournament's ``confirmation`` lets confirm it): it
    becomes the table's result, the standings count it, and a round it closes makes the next
    one (services.results.result_confirm), whose bot tables are sent as the API sends them."""
    submission = _submission(request, submission)
    match = submission.match
    try:
        _, progress = results.result_confirm(
            submission=submission, user=request.user,
            organiser=permissions.organises(caller(request), match.round.tournament))
    except ServiceError as exc:
        return _round_page(request, match.round.tournament_id, match.round.number, match=match.pk,
                           problem=exc.message, status=status_of(exc))
    return _counted(request, match, progress, gettext("Table %(n)s: the result is confirmed and counts in the "
                                                      "standings."))


@signed_in
@require_POST
def result_reject(request, submission: int):
    """Reject a reported result, saying why (services.results.result_reject): the table's
    result may then be reported again."""
    submission = _submission(request, submission)
    match = submission.match
    form = forms.RejectForm(request.POST, submission=submission)
    status = 400
    if form.passes():
        try:
            results.result_reject(submission=submission, reason=form.cleaned_data["reason"], user=request.user)
        except ServiceError as exc:
            form.refuse(exc)
            status = status_of(exc)
        else:
            messages.success(request, gettext("Table %(n)s: the reported result is rejected; report it again.")
                             % {"n": match.table})
            return redirect(_back_to(match))
    return _round_page(request, match.round.tournament_id, match.round.number, match=match.pk, reject_form=form,
                       status=status)
