"""Multiplayer Elo: a table's finishing order decomposed into every pair of seats.

Rules:

* Every pair (i, j) at the table is a game of classic Elo: i scores 1 if it finished ahead of j,
  ½ if they share a place, 0 if behind; it expected ``E_ij = 1 / (1 + 10^((R_j − R_i) / scale))``.
* A player's change is ``K / (N − 1) · Σ_j (S_ij − E_ij)`` over its N − 1 opponents: the K factor
  is split over them, so a four-seat table moves a rating about as much as one two-player game
  (``split_k=False`` gives each pair the full K instead).
* K is ``provisional_k`` while the player has fewer than ``provisional_games`` rated matches, so
  a newcomer reaches its level quickly.
* Expected place: ``1 + Σ_j E_ji``, one plus the number of opponents expected to finish ahead.

At two seats this is exactly classic Elo, ``R' = R + K (S − E)``. When every player at the table
has the same K the changes sum to zero (up to the 1e-9 rounding of stored values); in general
``Σ_i ΔR_i / K_i = 0``: rating moves from one player to another, none is created.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .base import PlayerId, Rating, RatingChange, rounded
from .config import config_from_json, config_to_json, fingerprint, normalise_numbers


@dataclass(frozen=True)
class EloSystem:
    """A ladder's Elo configuration (see the module docstring for the rule)."""

    name: ClassVar[str] = "elo"

    version: int = 1
    initial: float = 1500.0
    k: float = 24.0
    provisional_k: float = 40.0
    provisional_games: int = 10
    scale: float = 400.0
    split_k: bool = True

    def __post_init__(self) -> None:
        normalise_numbers(self, ("initial", "k", "provisional_k", "scale"), ("version", "provisional_games"))
        if not isinstance(self.split_k, bool):
            raise TypeError(f"elo split_k must be true or false, not {self.split_k!r}")
        if self.k <= 0 or self.provisional_k <= 0 or self.scale <= 0:
            raise ValueError("elo k, provisional_k and scale must be positive")
        if self.provisional_games < 0 or self.version < 1:
            raise ValueError("elo provisional_games must be ≥ 0 and version ≥ 1")

    def initial_rating(self) -> Rating:
        return Rating(self.initial, None, 0)

    def is_provisional(self, rating: Rating) -> bool:
        return rating.games < self.provisional_games

    def leaderboard_value(self, rating: Rating) -> float:
        """The number a leaderboard sorts by: the rating itself."""
        return rating.mu

    def to_json(self) -> dict[str, Any]:
        return config_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EloSystem:
        return config_from_json(cls, data)

    def fingerprint(self) -> str:
        return fingerprint(self)

    def rate(self, table: Sequence[tuple[PlayerId, Rating, int]]) -> list[RatingChange]:
        """Rate one table given in canonical order: (player, rating before, place) triples."""
        n = len(table)
        # Pairwise sums, accumulated in the table's canonical order so the float result never
        # depends on how the caller ordered its mappings. E_ji is taken as 1 − E_ij so the two
        # sides of a pair cancel exactly before rounding.
        surplus = [0.0] * n
        expected_ahead = [0.0] * n
        scale = self.scale
        for i in range(n):
            mu_i, place_i = table[i][1].mu, table[i][2]
            for j in range(i + 1, n):
                mu_j, place_j = table[j][1].mu, table[j][2]
                e_ij = 1.0 / (1.0 + 10.0 ** ((mu_j - mu_i) / scale))
                e_ji = 1.0 - e_ij
                s_ij = 1.0 if place_i < place_j else 0.5 if place_i == place_j else 0.0
                surplus[i] += s_ij - e_ij
                surplus[j] += (1.0 - s_ij) - e_ji
                expected_ahead[i] += e_ji
                expected_ahead[j] += e_ij
        changes = []
        for i, (player, before, place) in enumerate(table):
            k = self.provisional_k if before.games < self.provisional_games else self.k
            if self.split_k:
                k = k / (n - 1)
            after = Rating(rounded(before.mu + k * surplus[i]), None, before.games + 1)
            changes.append(RatingChange(player, before, after, rounded(1.0 + expected_ahead[i]), place))
        return changes
