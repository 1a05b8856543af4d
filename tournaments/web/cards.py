"""Cards as the pages draw them: each card's name in the reader's language, the letter on its
corner and the suit symbol it is drawn with (templates/web/_card_symbols.html, one inline SVG
sprite; static/web/cards.css colours them).

A card is the engine's code (engine/cards.py): rank then suit. The Italian deck (Stoppa, Sette
e mezzo, Piazza by default) has the suits denari, coppe, spade and bastoni and the figures
fante, cavallo and re; the French deck (Spacca il mazzo, Piazza's French variants) hearts,
diamonds, clubs and spades, jack, queen, king and two jokers. The same code means another card
in each (``JB`` is the fante di bastoni or the black joker), so every name is asked with the
match's deck (:func:`deck_of`). The games' own words stay as they are in both languages: the
Italian suits and figures, and the corner letters F, C, R of fante, cavallo and re.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from tournaments import games
from tournaments.games.base import FRENCH, ITALIAN

# The Italian suits keep their names in every language (the rules call them so in English).
ITALIAN_SUITS = {"D": "denari", "C": "coppe", "S": "spade", "B": "bastoni"}
ITALIAN_FIGURES = {"J": "fante", "N": "cavallo", "K": "re"}
# On a card's corner: the initials of the figures' own names, not the engine's J, N, K.
ITALIAN_CORNERS = {"J": "F", "N": "C", "K": "R"}
FRENCH_SUITS = {"H": "hearts", "D": "diamonds", "C": "clubs", "S": "spades"}
RED_JOKER, BLACK_JOKER = "JR", "JB"


def deck_of(game: str, options: dict | None = None) -> str:
    """Which deck a match is played with, as its game declares it (``deck`` in
    tournaments/games/: French for Spacca il mazzo and for Piazza's ``french`` and
    ``french_double`` decks, Italian otherwise; docs/games/); Italian for a game not declared."""
    declared = games.GAMES.get(game)
    return declared.deck(options) if declared is not None else ITALIAN


@dataclass(frozen=True)
class Card:
    """A card to draw: its code, the letter on its corner, the suit it is drawn with (the
    symbol's id and the colour's class: ``denari`` … ``spades``, ``joker``), its name, and
    whether it is a red joker (drawn red) or a black one."""

    code: str
    corner: str
    suit: str
    name: str
    red: bool = False


def _french_suit_name(letter: str) -> str:
    return {"H": _("hearts"), "D": _("diamonds"), "C": _("clubs"), "S": _("spades")}[letter]


def _rank_name(rank: str, deck: str) -> str:
    if rank == "A":
        return _("ace")
    if deck == ITALIAN:
        return ITALIAN_FIGURES.get(rank, rank)
    return {"J": _("jack"), "Q": _("queen"), "K": _("king")}.get(rank, rank)


def card(code: str, deck: str) -> Card:
    """The card ``code`` of ``deck`` as it is drawn and named. A code the deck does not know is
    drawn as its own letters (never raises: a page shows what the engine logged)."""
    if deck == FRENCH and code in (RED_JOKER, BLACK_JOKER):
        red = code == RED_JOKER
        return Card(code, "★", "joker", _("red joker") if red else _("black joker"), red=red)
    rank, letter = code[:-1], code[-1:]
    if deck == ITALIAN and letter in ITALIAN_SUITS and rank:
        suit = ITALIAN_SUITS[letter]
        name = _("%(rank)s of %(suit)s") % {"rank": _rank_name(rank, deck), "suit": suit}
        return Card(code, ITALIAN_CORNERS.get(rank, rank), suit, name)
    if deck == FRENCH and letter in FRENCH_SUITS and rank:
        name = _("%(rank)s of %(suit)s") % {"rank": _rank_name(rank, deck), "suit": _french_suit_name(letter)}
        return Card(code, rank, FRENCH_SUITS[letter], name, red=letter in "HD")
    return Card(code, code, "unknown", code)


def name(code: str, deck: str) -> str:
    """A card's name in the reader's language: "7 of denari", "re of spade", "queen of hearts"."""
    return card(code, deck).name


def names(codes, deck: str) -> str:
    """Several cards' names, one after another: "5 of coppe, 5 of spade"."""
    return ", ".join(name(code, deck) for code in codes)


def rank_name(rank: str, deck: str) -> str:
    """A rank alone, as asked for in Piazza's commercio: "5", "fante", "ace"."""
    return _rank_name(rank, deck)


def deck_codes(deck: str) -> list[str]:
    """Every code of the deck (the French one with its jokers), for the replay's script."""
    if deck == FRENCH:
        ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
        return [r + s for s in FRENCH_SUITS for r in ranks] + [RED_JOKER, BLACK_JOKER]
    return [r + s for s in ITALIAN_SUITS for r in ("A", "2", "3", "4", "5", "6", "7", "J", "N", "K")]


def faces(deck: str) -> dict[str, dict]:
    """Each card of the deck as the replay's script draws it: corner, suit, name, red."""
    return {code: {"corner": c.corner, "suit": c.suit, "name": c.name, "red": c.red}
            for code, c in ((code, card(code, deck)) for code in deck_codes(deck))}
