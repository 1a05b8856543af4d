"""The words the pages show for the service's values, in the reader's language.

The games keep their own names in every language (Stoppa, Sette e mezzo, Piazza, Spacca il
mazzo). The formats write how far an entrant went in a bracket as English labels
(``Format.reached``: "lost the final", "out in losers' round 3"); :func:`reached` says them
again in the active language, and leaves a label it does not know as it is, marked English.
The standings' explanations ("2nd: behind ada on Buchholz 14 vs 12") are put together by the
standings from words the pages give in the reader's language (:class:`ReaderPhrases`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import get_language, gettext, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from tournaments import games, standings
from tournaments.models import Match, Player, Round, Tournament

FORMAT_NAMES = {
    "round_robin": _("Round robin"),
    "swiss": _("Swiss"),
    "single_elimination": _("Single elimination"),
    "double_elimination": _("Double elimination"),
    "knockout": _("Multi-table knockout"),
}
BRACKET_FORMATS = ("single_elimination", "double_elimination", "knockout")

TOURNAMENT_STATUSES = {
    Tournament.Status.DRAFT: pgettext_lazy("tournament", "Draft"),
    Tournament.Status.REGISTRATION: pgettext_lazy("tournament", "Registration open"),
    Tournament.Status.RUNNING: pgettext_lazy("tournament", "Live"),
    Tournament.Status.FINISHED: pgettext_lazy("tournament", "Finished"),
    Tournament.Status.CANCELLED: pgettext_lazy("tournament", "Cancelled"),
}
MATCH_STATUSES = {
    Match.Status.PENDING: pgettext_lazy("match", "Waiting"),
    Match.Status.RUNNING: pgettext_lazy("match", "Playing"),
    Match.Status.FINISHED: pgettext_lazy("match", "Finished"),
}
ROUND_STATUSES = {
    Round.Status.PLAYING: pgettext_lazy("round", "Playing"),
    Round.Status.FINISHED: pgettext_lazy("round", "Finished"),
}
PLAYER_KINDS = {
    Player.Kind.PERSON: _("Person"),
    Player.Kind.BOT: _("Bot"),
}
BOT_KINDS = {
    Player.BotKind.BUILTIN: _("built-in bot"),
    Player.BotKind.SUBPROCESS: _("program run by the service"),
    Player.BotKind.HTTP: _("bot called over HTTP"),
    Player.BotKind.REMOTE: _("remote bot, playing through the API"),
}
TIEBREAK_NAMES = {
    standings.MATCH_POINTS: _("Points"),
    standings.GAME_SCORE: _("Game score"),
    standings.BUCHHOLZ: "Buchholz",
    standings.BUCHHOLZ_CUT1: "Buchholz cut 1",
    standings.SONNEBORN_BERGER: "Sonneborn-Berger",
    standings.HEAD_TO_HEAD: _("Head-to-head"),
    standings.WINS: _("Wins"),
}
RATING_SYSTEMS = {"elo": "Elo", "openskill": "OpenSkill (Plackett-Luce)"}


def game_name(game: str) -> str:
    """The game's own name (``display_name`` in tournaments/games/): the same in Italian and English."""
    declared = games.GAMES.get(game)
    return declared.display_name if declared is not None else game.replace("_", " ").capitalize()


def format_name(name: str) -> str:
    return str(FORMAT_NAMES.get(name, name.replace("_", " ")))


def ordinal(n: int) -> str:
    """1st, 2nd ... in English; 1º, 2º ... in Italian."""
    if (get_language() or "").startswith("it"):
        return f"{n}º"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# --- the formats' bracket labels -----------------------------------------------------------------

def stage(label: str) -> str | None:
    """A bracket round's name (formats.elimination.round_label, the double elimination's
    rounds), translated; None for one it does not know."""
    fixed = {
        "final": pgettext("bracket stage", "final"),
        "semi-final": pgettext("bracket stage", "semi-final"),
        "quarter-final": pgettext("bracket stage", "quarter-final"),
        "grand final": pgettext("bracket stage", "grand final"),
        "bracket reset": pgettext("bracket stage", "bracket reset"),
        "winners' bracket": pgettext("bracket stage", "winners' bracket"),
        "losers' bracket": pgettext("bracket stage", "losers' bracket"),
        "final table": pgettext("bracket stage", "final table"),  # the multi-table knockout's last
    }
    if label in fixed:
        return fixed[label]
    if m := re.fullmatch(r"round of (\d+)", label):
        return pgettext("bracket stage", "round of %(n)s") % {"n": m[1]}
    if m := re.fullmatch(r"winners' round (\d+)", label):
        return pgettext("bracket stage", "winners' round %(n)s") % {"n": m[1]}
    if m := re.fullmatch(r"losers' round (\d+)", label):
        return pgettext("bracket stage", "losers' round %(n)s") % {"n": m[1]}
    return None


def _out_in(label: str) -> str | None:
    """'out in the semi-final', 'out in losers' round 3' (elimination's _out_label)."""
    if label == "semi-final":
        return gettext("out in the semi-final")
    if label == "quarter-final":
        return gettext("out in the quarter-final")
    if m := re.fullmatch(r"round of (\d+)", label):
        return gettext("out in the round of %(n)s") % {"n": m[1]}
    if m := re.fullmatch(r"winners' round (\d+)", label):
        return gettext("out in winners' round %(n)s") % {"n": m[1]}
    if m := re.fullmatch(r"losers' round (\d+)", label):
        return gettext("out in losers' round %(n)s") % {"n": m[1]}
    return None


_ORDINAL = r"(\d+)(?:st|nd|rd|th)"


def _reached(label: str) -> str | None:
    fixed = {
        "champion": gettext("champion"),
        "champion (opponents withdrew)": gettext("champion (opponents withdrew)"),
        "champion (no opponent left)": gettext("champion (no opponent left)"),
        "lost the final": gettext("lost the final"),
        "lost the grand final": gettext("lost the grand final"),
        "lost the grand final (bracket reset)": gettext("lost the grand final (bracket reset)"),
        "not in the bracket": gettext("not in the bracket"),
        "did not play": gettext("did not play"),
    }
    if label in fixed:
        return fixed[label]
    if m := re.fullmatch(r"(.+) \(walkover\)", label):
        inner = _reached(m[1])
        return None if inner is None else gettext("%(reached)s (walkover)") % {"reached": inner}
    if m := re.fullmatch(r"out in (?:the )?(.+)", label):
        return _out_in(m[1])
    if m := re.fullmatch(r"still in \(round (\d+)\)", label):
        return gettext("still in (round %(n)s)") % {"n": m[1]}
    if m := re.fullmatch(r"still in \((.+), round (\d+)\)", label):
        where = stage(m[1])
        return None if where is None else gettext("still in (%(stage)s, round %(n)s)") % {"stage": where, "n": m[2]}
    if m := re.fullmatch(r"still in when the stage ended \(round (\d+)\)", label):
        return gettext("still in when the stage ended (round %(n)s)") % {"n": m[1]}
    if m := re.fullmatch(r"still in \((.+)\)", label):
        where = stage(m[1])
        return None if where is None else gettext("still in (%(stage)s)") % {"stage": where}
    if m := re.fullmatch(r"withdrew before round (\d+)", label):
        return gettext("withdrew before round %(n)s") % {"n": m[1]}
    if m := re.fullmatch(r"withdrew before the (.+)", label):
        where = stage(m[1])
        return None if where is None else gettext("withdrew before the %(stage)s") % {"stage": where}
    if m := re.fullmatch(r"withdrew after a bye in round (\d+)", label):
        return gettext("withdrew after a bye in round %(n)s") % {"n": m[1]}
    if m := re.fullmatch(rf"withdrew after round (\d+) \({_ORDINAL} at the table\)", label):
        return gettext("withdrew after round %(n)s (%(place)s at the table)") % {
            "n": m[1], "place": ordinal(int(m[2]))}
    if m := re.fullmatch(rf"{_ORDINAL} at the final table", label):
        return gettext("%(place)s at the final table") % {"place": ordinal(int(m[1]))}
    if m := re.fullmatch(rf"out at round (\d+), {_ORDINAL} at the table", label):
        return gettext("out at round %(n)s, %(place)s at the table") % {"n": m[1], "place": ordinal(int(m[2]))}
    return None


@dataclass(frozen=True)
class Said:
    """A text and the language it is in (None: the page's)."""

    text: str
    lang: str | None = None


def reached(label: str | None) -> Said | None:
    """How far an entrant went (StandingLine.reached) in the reader's language; a label this
    module does not know stays in English, and says so (``lang``)."""
    if label is None:
        return None
    said = _reached(label)
    return Said(said) if said is not None else Said(label, "en")


# --- the standings' explanations -------------------------------------------------------------

_EXPLAINED_LABELS = {
    standings.MATCH_POINTS: _("match points"),
    standings.GAME_SCORE: _("game score"),
    standings.HEAD_TO_HEAD: _("head-to-head"),
    standings.WINS: _("wins"),
}


class ReaderPhrases(standings.Phrases):
    """An explanation's words in the active language (standings.Phrases says them in English)."""

    def __init__(self) -> None:
        self.language = get_language() or "en"

    def label(self, tiebreak: str) -> str:
        return str(_EXPLAINED_LABELS.get(tiebreak, standings.LABELS[tiebreak]))  # Buchholz & co. are names

    def ordinal(self, n: int) -> str:
        return ordinal(n)

    def reached(self, label: str) -> str:
        said = _reached(label)
        return label if said is None else said

    def join(self, names: list[str]) -> str:
        if len(names) == 1:
            return names[0]
        return gettext("%(first)s and %(last)s") % {"first": ", ".join(names[:-1]), "last": names[-1]}

    def versus(self, mine: str, theirs: str) -> str:
        return gettext("%(mine)s vs %(theirs)s") % {"mine": mine, "theirs": theirs}

    def on(self, label: str, shown: str) -> str:
        return gettext("on %(tiebreak)s %(shown)s") % {"tiebreak": label, "shown": shown}

    def level(self, text: str, levels: list[str]) -> str:
        return gettext("%(reason)s (level on %(levels)s)") % {"reason": text, "levels": ", ".join(levels)}

    def on_bracket(self, mine: str, theirs: str) -> str:
        return gettext("on the bracket: %(mine)s vs %(theirs)s") % {"mine": mine, "theirs": theirs}

    def tied(self, names: str, values: list[str]) -> str:
        text = gettext("tied with %(names)s after every tie-break") % {"names": names}
        return f"{text} ({', '.join(values)})" if values else text

    def behind(self, name: str, reason: str) -> str:
        return gettext("behind %(name)s %(reason)s") % {"name": name, "reason": reason}

    def ahead(self, name: str, reason: str) -> str:
        return gettext("ahead of %(name)s %(reason)s") % {"name": name, "reason": reason}

    def alone(self) -> str:
        return gettext("the only entrant")


def standings_phrases() -> standings.Phrases | None:
    """The words of the standings' explanations for the reader: None in English (the API's own,
    and their cache), else :class:`ReaderPhrases`."""
    return None if (get_language() or "en").startswith("en") else ReaderPhrases()
