"""Ratings as pure functions: multiplayer Elo (the default) and openskill's Plackett-Luce.

    system = EloSystem()                                   # frozen, versioned, fingerprinted
    changes = rate_match(system, ratings, {7: 1, 12: 2, 31: 2, 40: 4})
    final, ledger = replay_ladder(system, [((finished_at, match_id), places), ...])

See docs/ratings.md for the rules, what is conserved and how replay stays bit-identical.
"""

from .base import DIGITS, PlayerId, Rating, RatingChange, rounded
from .elo import EloSystem
from .ladder import SYSTEMS, RatedMatch, RatingSystem, rate_match, replay_ladder, system_from_json
from .plackett_luce import PlackettLuceSystem

__all__ = [
    "DIGITS",
    "EloSystem",
    "PlackettLuceSystem",
    "PlayerId",
    "RatedMatch",
    "Rating",
    "RatingChange",
    "RatingSystem",
    "SYSTEMS",
    "rate_match",
    "replay_ladder",
    "rounded",
    "system_from_json",
]
