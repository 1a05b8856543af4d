"""The forms of the organisers' screens and of accounts: they check what a browser can get
wrong (a number that is not one, a missing field) and turn the input into the values the
services take. The rules themselves are the services': a refusal (``ServiceError``) is put
back on the form, next to the field it names (:meth:`ServiceForm.refuse`).

A tournament's settings are those ``TournamentSerializer`` takes (docs/tournaments.md); the
game's options and their choices come from the engine (``engine.game(name).options``), the
format's settings from the format itself (``tournaments.formats.FORMATS``), so a new option or
setting shows up here without a change.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.text import slugify
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

import engine
from tournaments import formats, games, limits, standings
from tournaments.models import ApiToken, Player, RatingLadder, Tournament
from tournaments.services import ServiceError, accounts
from tournaments.services.players import builtin_bots

from . import terms

SEED_MAX = 2**63 - 1  # as the API's TournamentSerializer
NONE = "none"  # the choice of a nullable option set to null ("play without the matta")
# Format settings the tournament sets itself: the table size, duplicate play, and the points
# the standings use (a format that scores takes the tournament's points_by_place).
FORMAT_RESERVED = frozenset({"seats", "duplicate", "points", "bye_points"})
FORMAT_SETTING_WORDS = {
    "cycles": (_("Cycles"), _("How many times every pair of players meets: 2 plays a double round robin.")),
    "rounds": (_("Rounds"), _("Empty: as many as the format needs.")),
    "min_seats": (_("Smallest table"),
                  _("Tables this small are allowed when the players do not fill the tables; empty: byes instead.")),
    "advance": (_("Players going through from each table"), _("Empty: 2.")),
    "bracket_reset": (_("Bracket reset"),
                      _("The grand final is played again when the losers' bracket's finalist wins it.")),
}


class ServiceForm(forms.Form):
    """A form whose service may still refuse what it passed. ``groups`` are the service's
    fields that are not one field of the form but a group of them (a game's options, the
    tie-breaks): their errors are shown on the group's fieldset."""

    groups: tuple[str, ...] = ()
    # The service's name of a field -> the form's, where they differ.
    service_names: dict[str, str] = {}

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")  # labels are words, not "Name:"
        super().__init__(*args, **kwargs)
        self.group_errors: dict[str, list[ValidationError]] = {}

    def refuse(self, exc: ServiceError) -> None:
        """Show the service's refusal next to the field it names (the form as a whole when it
        names none the form has). Its message is the service's own, in English."""
        name = self.service_names.get(exc.field or "", exc.field)
        error = ValidationError(exc.message, code="service")  # shown marked as English
        if name in self.groups:
            self.group_errors.setdefault(name, []).append(error)
        elif name in self.fields:
            self.add_error(name, error)
        else:
            self.add_error(None, error)

    def passes(self) -> bool:
        """Valid, with nothing refused in a group of fields either."""
        return self.is_valid() and not self.group_errors

    def error_summary(self) -> list[tuple[str, str, list[ValidationError]]]:
        """(the anchor of the field or group at fault, its label, its errors): the list at the
        top of a refused form links to each."""
        out = []
        for name in self.errors:
            if name == "__all__":
                continue
            field = self[name]
            out.append((field.auto_id or name, str(field.label), field.errors.as_data()))
        for group, errors in self.group_errors.items():
            out.append((f"{self.prefix + '-' if self.prefix else ''}{group}-group", self.group_label(group), errors))
        return out

    def group_label(self, group: str) -> str:
        return group


# --- accounts -------------------------------------------------------------------------------------

class SignInForm(AuthenticationForm):
    """Django's sign-in form (its messages are translated by Django), with the browser's
    autocomplete hints."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs.update(autocomplete="username", autocapitalize="none")
        self.fields["password"].widget.attrs.update(autocomplete="current-password")


class SignUpForm(ServiceForm):
    """A new account, as ``POST /api/accounts/`` takes it (services.accounts.account_create
    checks the username and the password), with the password typed twice."""

    username = forms.CharField(
        label=_("Username"), max_length=accounts.USERNAME_MAX,
        help_text=_("Up to 64 letters, digits and @ . + - _; shown on leaderboards and at tables."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    email = forms.EmailField(label=_("E-mail address (optional)"), required=False, max_length=accounts.EMAIL_MAX,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = forms.CharField(
        label=_("Password"), max_length=4096, strip=False,
        help_text=_("At least 8 characters, not a common password, not only digits, not like your username."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_again = forms.CharField(label=_("Password again"), max_length=4096, strip=False,
                                     widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))

    def clean(self) -> dict:
        data = super().clean()
        password, again = data.get("password"), data.get("password_again")
        if password and again is not None and password != again:
            self.add_error("password_again", _("The two passwords differ."))
        return data


class TokenForm(ServiceForm):
    """A new API token (services.tokens.token_create), as ``POST /api/tokens/`` takes it."""

    name = forms.CharField(label=_("What it is for"), max_length=100,
                           help_text=_("For example: my scripts, my bot on the laptop."))
    scopes = forms.MultipleChoiceField(
        label=_("It may"), widget=forms.CheckboxSelectMultiple,
        choices=[(ApiToken.Scope.READ, _("read: your bots' settings and the details of your players' forfeits")),
                 (ApiToken.Scope.ORGANISE, _("organise: create and change your players and tournaments, and run them")),
                 (ApiToken.Scope.PLAY, _("play: act for your players at a table, report and confirm results"))],
        initial=list(ApiToken.Scope.values),
    )
    bot = forms.ModelChoiceField(label=_("Only for this bot (optional)"), queryset=Player.objects.none(),
                                 required=False, empty_label=_("any of your players"),
                                 help_text=_("A token for one remote bot (the bots that play through the API) acts "
                                             "as that bot alone: it may read and play, never organise."))
    expires_at = forms.DateTimeField(
        label=_("Expires (optional, UTC)"), required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"],
        help_text=_("At most two years away; empty: it lasts two years at most, until you revoke it."),
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Only a remote bot's: the service plays the other bots, and nobody reads their seats.
        self.fields["bot"].queryset = Player.objects.filter(owner=user, bot_kind=Player.BotKind.REMOTE).order_by("name")


# --- tournaments ----------------------------------------------------------------------------------

def _static(bound: Any) -> Any:
    """An engine bound that does not depend on the number of players (else None)."""
    return None if callable(bound) else bound


def _shown(value: Any) -> str:
    if value is None:
        return gettext("none")
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    return str(value)


class OptionField:
    """How one engine option is asked for and read back: blank is the game's default."""

    def __init__(self, game: str, name: str, option: engine.Option) -> None:
        self.game, self.name, self.option = game, name, option
        self.key = f"option_{game}_{name}"
        kinds = option.kind if isinstance(option.kind, tuple) else (option.kind,)
        self.boolean = bool in kinds
        self.choices = {str(c): c for c in option.choices} if option.choices is not None else None

    def field(self) -> forms.Field:
        option = self.option
        default = option.resolve_default(None)  # None: it depends on the table size
        default_said = (gettext("default") if callable(option.default)
                        else gettext("default: %(value)s") % {"value": _shown(default)})
        label = self.name.replace("_", " ")
        if self.choices is not None or self.boolean:
            values = ([(key, key) for key in self.choices] if self.choices is not None
                      else [("true", gettext("yes")), ("false", gettext("no"))])
            if option.nullable:
                values.append((NONE, gettext("none")))
            field = forms.ChoiceField(label=label, required=False, choices=[("", default_said), *values])
        else:
            declared = games.GAMES.get(self.game)
            bound = declared.option_bounds.get(self.name) if declared is not None else None
            lows = [b for b in (_static(option.low), bound and bound.low) if b is not None]
            highs = [b for b in (_static(option.high), bound and bound.high) if b is not None]
            field = forms.IntegerField(label=label, required=False, min_value=max(lows, default=None),
                                       max_value=min(highs, default=None))
            field.widget.attrs["placeholder"] = default_said
        field.help_text = option.doc
        field.help_lang = "en"  # the engine's own words (docs/games/)
        return field

    def read(self, value: Any) -> tuple[bool, Any]:
        """(given, the option's value) of what the form cleaned: not given when left blank."""
        if value in (None, ""):
            return False, None
        if value == NONE and self.option.nullable:
            return True, None
        if self.choices is not None:
            return True, self.choices[value]
        if self.boolean:
            return True, value == "true"
        return True, value

    def show(self, value: Any) -> Any:
        """A stored value as the form shows it."""
        if value is None:
            return NONE if self.option.nullable else ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value) if self.choices is not None else value


class FormatSettingField:
    """One setting of a format (``format_config``), from the format's own dataclass: whole
    numbers, or yes/no for a boolean one; blank is the format's default."""

    def __init__(self, format_name: str, field: dataclasses.Field) -> None:
        self.format, self.name = format_name, field.name
        self.key = f"setting_{format_name}_{field.name}"
        self.boolean = "bool" in str(field.type)
        self.default = field.default

    def field(self) -> forms.Field:
        label, help_text = FORMAT_SETTING_WORDS.get(self.name, (self.name.replace("_", " "), ""))
        if self.boolean:
            default = gettext("default: %(value)s") % {"value": _shown(self.default)}
            return forms.ChoiceField(label=label, help_text=help_text, required=False,
                                     choices=[("", default), ("true", gettext("yes")), ("false", gettext("no"))])
        high = limits.FORMAT_INT_MAX.get(self.name)
        return forms.IntegerField(label=label, help_text=help_text, required=False, min_value=1, max_value=high)

    def read(self, value: Any) -> tuple[bool, Any]:
        if value in (None, ""):
            return False, None
        return True, (value == "true") if self.boolean else value

    def show(self, value: Any) -> Any:
        if isinstance(value, bool):
            return "true" if value else "false"
        return value


def option_fields(game: str) -> list[OptionField]:
    return [OptionField(game, name, option) for name, option in engine.game(game).options.items()]


def format_setting_fields(format_name: str) -> list[FormatSettingField]:
    return [FormatSettingField(format_name, f) for f in dataclasses.fields(formats.FORMATS[format_name])
            if f.name not in FORMAT_RESERVED]


def table_sizes_said() -> str:
    return " · ".join(f"{terms.game_name(name)} {game.min_players}–{game.max_players}"
                      for name, game in engine.games().items())


def _points(text: str) -> list[int | float]:
    """"3, 2, 1, 0" as numbers (commas, semicolons or spaces between them; a decimal point for
    halves: 1.5)."""
    numbers = []
    for part in text.replace(",", " ").replace(";", " ").split():
        try:
            number = Decimal(part)
        except InvalidOperation:
            raise ValidationError(_("%(part)s is not a number: write the points as numbers separated by commas, "
                                    "for example 3, 2, 1, 0."), params={"part": part}) from None
        if not number.is_finite():
            raise ValidationError(_("Points are finite numbers."))
        numbers.append(int(number) if number == number.to_integral_value() else float(number))
    return numbers


# Who confirms a reported result (Tournament.Confirmation), in words: the form's choices, and
# the organiser's page of a tournament.
CONFIRMATIONS = {
    Tournament.Confirmation.OTHER: _("An organiser's report counts at once; a player's once an organiser, or "
                                     "someone else seated at the table, confirms it"),
    Tournament.Confirmation.ORGANISER: _("An organiser's report counts at once; a player's once an organiser "
                                         "confirms it"),
    Tournament.Confirmation.STRICT: _("Every report waits for someone other than its author to confirm it, an "
                                      "organiser's too"),
    Tournament.Confirmation.NONE: _("Every report counts at once, whoever makes it"),
}


class TournamentForm(ServiceForm):
    """Every setting a tournament is made with (services.tournaments.tournament_create), or
    changed with before it starts (tournament_update: ``instance`` then holds the tournament,
    and :meth:`changes` gives only what differs from it)."""

    groups = ("options", "format_config", "tiebreaks")

    name = forms.CharField(label=_("Name"), max_length=120)
    slug = forms.SlugField(label=_("Short name for addresses"), max_length=80, required=False,
                           help_text=_("Letters, digits and hyphens, unique; empty: made from the name."))
    game = forms.ChoiceField(label=_("Game"))
    table_size = forms.IntegerField(label=_("Players at a table"), min_value=1, max_value=32767)
    format = forms.ChoiceField(label=_("Format"))
    duplicate = forms.BooleanField(label=_("Duplicate: every table of a round plays the same cards (bots only)"),
                                   required=False)
    points_by_place = forms.CharField(
        label=_("Points by place"), required=False, max_length=500,
        help_text=_("Points for 1st, 2nd, 3rd… place, separated by commas, e.g. 3, 2, 1, 0 (a half with a "
                    "point: 1.5); empty: the table size less the place."))
    where = forms.ChoiceField(
        label=_("Where it is played"), widget=forms.RadioSelect, initial="room",
        choices=[("room", _("In the room: people play at real tables, and their results are reported here")),
                 ("online", _("Online: people and remote bots play their moves through the API"))])
    # Who must confirm a result reported from a real table (services.results): in the room only;
    # an online tournament's results come from the play (its stored rule is kept).
    confirmation = forms.ChoiceField(
        label=_("Who confirms a reported result"), widget=forms.RadioSelect, required=False,
        initial=Tournament.Confirmation.OTHER,
        help_text=_("A result counts in the standings once it is confirmed; until then it may be rejected, with "
                    "a reason, and reported again."),
        choices=list(CONFIRMATIONS.items()))
    move_seconds = forms.IntegerField(label=_("Seconds for each move"), required=False, min_value=1,
                                      help_text=_("Online only; empty: no limit."))
    bank_seconds = forms.IntegerField(label=_("Reserve of seconds for the whole match"), required=False,
                                      min_value=1, help_text=_("Spent once a move's seconds are used up; "
                                                               "needs seconds for each move."))
    timeout_bot = forms.ChoiceField(label=_("When a move's time runs out"), required=False)
    open_entry = forms.BooleanField(label=_("Open entry: players' owners may enter their own players"),
                                    required=False)
    several_seats = forms.BooleanField(
        label=_("Several seats for one account"), required=False,
        help_text=_("An account may then enter several players whose cards it sees (a person and her remote bot, "
                    "two bots of one author), who may meet at a table. Never in a rated tournament."))
    starts_at = forms.DateTimeField(
        label=_("Starts at (UTC)"), required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"],
        help_text=_("It starts by itself at that time; empty: when you start it."))
    round_interval = forms.IntegerField(label=_("Minutes between rounds"), required=False, min_value=1,
                                        help_text=_("Round N opens at the start plus N − 1 intervals; "
                                                    "empty: each round as soon as the last one ends."))
    ladder = forms.ModelChoiceField(label=_("Rated on the ladder"), queryset=RatingLadder.objects.none(),
                                    required=False, empty_label=_("not rated"),
                                    help_text=_("Ladders you organise, of the tournament's game."))
    seed = forms.IntegerField(
        label=_("Seed (optional)"), required=False, min_value=0, max_value=SEED_MAX,
        help_text=_("Every deal derives from it. Empty: drawn at random, so that nobody knows the deals; "
                    "if you choose it, you know them, and the tournament's page says so."))

    def __init__(self, *args, ladders, instance: Tournament | None = None, **kwargs) -> None:
        self.instance = instance
        self.option_fields = {game: option_fields(game) for game in engine.games()}
        self.setting_fields = {name: format_setting_fields(name) for name in formats.FORMATS}
        if instance is not None:
            kwargs.setdefault("initial", self._initial(instance))
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(name, terms.game_name(name)) for name in engine.games()]
        self.fields["format"].choices = [(name, terms.format_name(name)) for name in formats.FORMATS]
        self.fields["table_size"].help_text = gettext("Players at each table: %(ranges)s.") % {
            "ranges": table_sizes_said()}
        self.fields["ladder"].queryset = ladders
        self.fields["ladder"].label_from_instance = lambda ladder: (
            f"{ladder.name} · {terms.game_name(ladder.game)} · v{ladder.version}")
        self.fields["timeout_bot"].choices = [("", gettext("the seat is forfeited (it ranks last)"))] + [
            (bot, gettext("the built-in bot %(bot)s plays the move") % {"bot": bot}) for bot in sorted(builtin_bots())]
        for i, default in enumerate(self._tiebreak_slots(), start=1):
            self.fields[f"tiebreak_{i}"] = forms.ChoiceField(
                label=gettext("Tie-break %(n)s") % {"n": i}, required=False,
                choices=[("", "—")] + [(t, str(terms.TIEBREAK_NAMES.get(t, t))) for t in standings.TIEBREAKS])
            if instance is None:
                self.fields[f"tiebreak_{i}"].initial = default
        for fields in self.option_fields.values():
            for option in fields:
                self.fields[option.key] = option.field()
        for fields in self.setting_fields.values():
            for setting in fields:
                self.fields[setting.key] = setting.field()
        if instance is not None:
            self.fields["seed"].help_text = _("Empty: the seed stays as it is (drawn or chosen). "
                                              "A number chooses it: then you know every deal.")
            self.fields["new_seed"] = forms.BooleanField(
                label=_("Draw a new secret seed (undoes a chosen one)"), required=False)

    @staticmethod
    def _tiebreak_slots() -> list[str]:
        return list(standings.DEFAULT_TIEBREAKS) + [""] * (len(standings.TIEBREAKS) - len(standings.DEFAULT_TIEBREAKS))

    def _initial(self, tournament: Tournament) -> dict:
        initial: dict[str, Any] = {
            "name": tournament.name, "slug": tournament.slug, "game": tournament.game,
            "table_size": tournament.table_size, "format": tournament.format, "duplicate": tournament.duplicate,
            "points_by_place": ", ".join(str(p) for p in tournament.points_by_place),
            "where": "online" if tournament.online else "room",
            "move_seconds": tournament.move_seconds, "bank_seconds": tournament.bank_seconds,
            "timeout_bot": tournament.timeout_bot, "open_entry": tournament.open_entry,
            "several_seats": tournament.several_seats, "confirmation": tournament.confirmation,
            "starts_at": tournament.starts_at, "ladder": tournament.ladder_id,
            "round_interval": (int(tournament.round_interval.total_seconds() // 60)
                               if tournament.round_interval is not None else None),
        }
        for i in range(len(standings.TIEBREAKS)):
            initial[f"tiebreak_{i + 1}"] = tournament.tiebreaks[i] if i < len(tournament.tiebreaks) else ""
        for option in self.option_fields[tournament.game] if tournament.game in self.option_fields else ():
            if option.name in tournament.options:
                initial[option.key] = option.show(tournament.options[option.name])
        for setting in self.setting_fields.get(tournament.format, ()):
            if setting.name in tournament.format_config:
                initial[setting.key] = setting.show(tournament.format_config[setting.name])
        return initial

    # --- what the page shows ------------------------------------------------------------------

    def refuse(self, exc: ServiceError) -> None:
        """A refusal of the options or the format's settings goes next to the one option or
        setting its message names (the engine's and the formats' messages name them), else on
        the group."""
        if exc.field in ("options", "format_config"):
            fields = (self.option_fields.get(self.chosen_game, []) if exc.field == "options"
                      else self.setting_fields.get(self.chosen_format, []))
            named = [f for f in fields if re.search(rf"\b{re.escape(f.name)}\b", exc.message)]
            if len(named) == 1:
                self.add_error(named[0].key, ValidationError(exc.message, code="service"))
                return
        super().refuse(exc)

    def group_label(self, group: str) -> str:
        return {"options": gettext("The game's options"), "format_config": gettext("The format's settings"),
                "tiebreaks": gettext("Tie-breaks")}.get(group, group)

    def option_groups(self) -> list[tuple[str, str, list[forms.BoundField]]]:
        """Each game with its options' fields: (game, its name, fields)."""
        return [(game, terms.game_name(game), [self[option.key] for option in fields])
                for game, fields in self.option_fields.items()]

    def setting_groups(self) -> list[tuple[str, str, list[forms.BoundField]]]:
        return [(name, terms.format_name(name), [self[setting.key] for setting in fields])
                for name, fields in self.setting_fields.items()]

    def tiebreak_fields(self) -> list[forms.BoundField]:
        return [self[f"tiebreak_{i}"] for i in range(1, len(standings.TIEBREAKS) + 1)]

    def _chosen(self, name: str) -> str:
        value = self.data.get(name) if self.is_bound else None
        return value or self.initial.get(name) or self.fields[name].initial or self.fields[name].choices[0][0]

    @property
    def chosen_game(self) -> str:
        """The game chosen (as submitted, else as it stands): its options are the ones that
        count, and with JavaScript the only ones shown."""
        return self._chosen("game")

    @property
    def chosen_format(self) -> str:
        return self._chosen("format")

    # --- what the service is given -----------------------------------------------------------

    def clean_points_by_place(self) -> list | None:
        text = self.cleaned_data["points_by_place"].strip()
        return _points(text) if text else None

    def clean(self) -> dict:
        data = super().clean()
        # Only the chosen game's options and format's settings count, and the clock only
        # online: what a page without JavaScript shows of the others is not checked.
        chosen_game, chosen_format = self.data.get("game"), self.data.get("format")
        ignored = [option.key for game, fields in self.option_fields.items() if game != chosen_game
                   for option in fields]
        ignored += [setting.key for name, fields in self.setting_fields.items() if name != chosen_format
                    for setting in fields]
        if data.get("where") != "online":
            ignored += ["move_seconds", "bank_seconds", "timeout_bot"]
        for key in ignored:
            if self._errors.pop(key, None) is not None:
                data[key] = None
        if not data.get("slug") and data.get("name") and "slug" not in self.errors:
            data["slug"] = slugify(data["name"])[:80].strip("-")
            if not data["slug"]:
                self.add_error("slug", _("Give a short name made of letters, digits and hyphens: "
                                         "the name has none to make it from."))
        return data

    def settings(self) -> dict:
        """The tournament's settings as tournament_create takes them."""
        data = self.cleaned_data
        game, format_name = data["game"], data["format"]
        options = {}
        for option in self.option_fields[game]:
            given, value = option.read(data.get(option.key))
            if given:
                options[option.name] = value
        config = {}
        for setting in self.setting_fields[format_name]:
            given, value = setting.read(data.get(setting.key))
            if given:
                config[setting.name] = value
        online = data["where"] == "online"
        settings = {
            "name": data["name"], "slug": data["slug"], "game": game, "table_size": data["table_size"],
            "format": format_name, "options": options, "format_config": config, "duplicate": data["duplicate"],
            "points_by_place": data["points_by_place"],
            "tiebreaks": [t for t in (data.get(f"tiebreak_{i}") for i in range(1, len(standings.TIEBREAKS) + 1)) if t],
            "ladder": data["ladder"], "starts_at": data["starts_at"],
            "round_interval": timedelta(minutes=data["round_interval"]) if data["round_interval"] else None,
            "open_entry": data["open_entry"], "several_seats": data["several_seats"], "online": online,
            # The clock is online play's: in the room nothing of it is sent (the service would
            # refuse it), whatever the hidden fields still hold.
            "move_seconds": data["move_seconds"] if online else None,
            "bank_seconds": data["bank_seconds"] if online else None,
            "timeout_bot": data["timeout_bot"] if online else "",
            # Not sent (online: the field is hidden): the rule stays as it is.
            "confirmation": data["confirmation"] or (self.instance.confirmation if self.instance is not None
                                                     else Tournament.Confirmation.OTHER),
        }
        if data.get("seed") is not None:
            settings["seed"] = data["seed"]
        return settings

    def changes(self) -> dict:
        """What differs from the tournament being edited, as tournament_update takes it: only
        what changed, so that a start time already past, say, is not set again."""
        tournament = self.instance
        settings = self.settings()
        seed = settings.pop("seed", None)
        changed = {name: value for name, value in settings.items() if value != self._current(tournament, name)}
        if self.cleaned_data.get("new_seed"):
            changed["seed"] = None  # a new secret one
        elif seed is not None:
            changed["seed"] = seed
        return changed

    @staticmethod
    def _current(tournament: Tournament, name: str) -> Any:
        if name == "points_by_place":
            # Empty means the default, which is what a tournament stores when none was given.
            return tournament.points_by_place if tournament.points_by_place != list(
                standings.default_points_by_place(tournament.table_size)) else None
        if name == "tiebreaks":
            return list(tournament.tiebreaks)
        return getattr(tournament, name)


# --- entries ----------------------------------------------------------------------------------------

class PersonForm(ServiceForm):
    """A person to enter: a new player of the organiser's (services.players.player_create), as
    ``POST /api/players/`` takes it."""

    name = forms.SlugField(label=_("Handle"), max_length=64,
                           help_text=_("Unique: letters, digits, hyphens and underscores, e.g. giulia-rossi."))
    display_name = forms.CharField(label=_("Name shown"), max_length=120, required=False,
                                   help_text=_("For example: Giulia Rossi; empty: the handle."))

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("prefix", "person")
        super().__init__(*args, **kwargs)


class BotForm(ServiceForm):
    """A built-in bot to enter: a new bot player of the organiser's, playing one of the game's
    built-in bots."""

    service_names = {"bot_config": "bot"}

    bot = forms.ChoiceField(label=_("Bot"))
    name = forms.SlugField(label=_("Handle"), max_length=64,
                           help_text=_("Unique: letters, digits, hyphens and underscores, e.g. heuristic-1."))

    def __init__(self, *args, game: str, **kwargs) -> None:
        kwargs.setdefault("prefix", "bot")
        super().__init__(*args, **kwargs)
        self.fields["bot"].choices = [(bot, bot) for bot in sorted(builtin_bots(game))]


class ExistingPlayerForm(ServiceForm):
    """A player that exists already, by its handle: one of the organiser's, or a built-in bot."""

    player = forms.CharField(label=_("Player's handle"), max_length=64,
                             widget=forms.TextInput(attrs={"list": "candidates", "autocapitalize": "none"}))

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("prefix", "existing")
        super().__init__(*args, **kwargs)

    def clean_player(self) -> Player:
        name = self.cleaned_data["player"].strip()
        player = Player.objects.filter(name=name).first()
        if player is None:
            raise ValidationError(_("No player has the handle %(name)s."), params={"name": name})
        return player


class OrganiserForm(ServiceForm):
    """A co-organiser, by username (as ``POST /api/tournaments/{id}/organisers/``)."""

    username = forms.CharField(label=_("Their username"), max_length=150,
                               widget=forms.TextInput(attrs={"autocapitalize": "none"}))

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("prefix", "organiser")
        super().__init__(*args, **kwargs)


# --- results ----------------------------------------------------------------------------------------

class ResultForm(ServiceForm):
    """A table's result as people report it (services.results.result_submit): each seat's
    score, and its place if given (all or none: left empty, the places follow the scores as
    the game ranks them)."""

    groups = ("scores", "places")  # the service's refusals name the scores or the places as a whole

    def __init__(self, *args, match, **kwargs) -> None:
        kwargs.setdefault("prefix", f"table-{match.pk}")
        super().__init__(*args, **kwargs)
        self.match = match
        self.seats = list(match.seats.all())
        for seat in self.seats:
            said = {"n": seat.position + 1, "player": str(seat.player)}
            self.fields[f"score_{seat.position}"] = forms.IntegerField(
                label=gettext("Score of seat %(n)s, %(player)s") % said,
                min_value=limits.INT32_MIN, max_value=limits.INT32_MAX)
            self.fields[f"place_{seat.position}"] = forms.IntegerField(
                label=gettext("Place of seat %(n)s, %(player)s") % said, required=False,
                min_value=1, max_value=len(self.seats))
    def group_label(self, group: str) -> str:
        return gettext("Scores") if group == "scores" else gettext("Places")

    def rows(self) -> list[tuple[Any, forms.BoundField, forms.BoundField]]:
        return [(seat, self[f"score_{seat.position}"], self[f"place_{seat.position}"]) for seat in self.seats]

    def clean(self) -> dict:
        data = super().clean()
        places = [data.get(f"place_{seat.position}") for seat in self.seats]
        given = [p for p in places if p is not None]
        if given and len(given) != len(places):
            self.group_errors.setdefault("places", []).append(ValidationError(
                gettext("Give every seat's place, or none: left empty, the places follow the scores.")))
        return data

    def result(self) -> tuple[list[int], list[int] | None]:
        data = self.cleaned_data
        scores = [data[f"score_{seat.position}"] for seat in self.seats]
        places = [data.get(f"place_{seat.position}") for seat in self.seats]
        return scores, (places if all(p is not None for p in places) else None)


class RejectForm(ServiceForm):
    """Why a reported result is rejected (services.results.result_reject)."""

    reason = forms.CharField(label=_("Why it is wrong"), max_length=limits.REASON_MAX)

    def __init__(self, *args, submission, **kwargs) -> None:
        kwargs.setdefault("prefix", f"reject-{submission.pk}")
        super().__init__(*args, **kwargs)
