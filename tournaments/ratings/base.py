"""The values every rating system shares: a player's rating, one change, the rounding rule.

Stored values are rounded to ``DIGITS`` decimal places after every match. Two reasons: a rating
read back from the database (float8, JSON) is then exactly the value the next match starts from,
and the last bits of ``10 ** x`` or ``erf`` that a different libm may compute differently are
almost always rounded away, so a replay on another machine gives the same ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PlayerId = int

DIGITS = 9


def rounded(value: float) -> float:
    """``value`` rounded to ``DIGITS`` decimals (Python's ``round`` is correctly rounded)."""
    return round(value, DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0, so equal values print alike


@dataclass(frozen=True)
class Rating:
    """A player's rating on one ladder.

    ``mu`` is the Elo rating, or openskill's mean skill; ``sigma`` is openskill's uncertainty
    (None for Elo); ``games`` counts rated matches so far: the player is provisional while it is
    below the system's ``provisional_games``.
    """

    mu: float
    sigma: float | None = None
    games: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "games": self.games}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rating:
        sigma = data.get("sigma")
        return cls(float(data["mu"]), None if sigma is None else float(sigma), int(data["games"]))


@dataclass(frozen=True)
class RatingChange:
    """One player's line in the ladder's ledger for one match.

    ``expected_place`` is the place the system expected before the match (1 is first; ties and
    uncertainty make it fractional); ``actual_place`` is the place the player finished in.
    """

    player: PlayerId
    before: Rating
    after: Rating
    expected_place: float
    actual_place: int

    @property
    def delta(self) -> float:
        """How much ``mu`` moved (rounded like the stored values)."""
        return rounded(self.after.mu - self.before.mu)

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "expected_place": self.expected_place,
            "actual_place": self.actual_place,
        }
