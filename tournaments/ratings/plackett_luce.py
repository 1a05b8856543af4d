"""openskill's Plackett-Luce (Weng & Lin 2011, algorithm 4), the ladder's second system.

The update itself is the ``openskill`` package's (``openskill.models.PlackettLuce``), not a
reimplementation: each seat is a team of one, ranked by its place (shared places are ties).
This module only fixes the call so it is reproducible: the table is passed in canonical order,
the model is built from the ladder's frozen configuration, and stored values are rounded.

Expected place: ``1 + Σ_j P(j finishes ahead of i)`` with openskill's pairwise probability
``Φ((μ_j − μ_i) / √(2β² + σ_i² + σ_j²))``, the one its ``predict_win`` uses, taken before the
match. A leaderboard sorts by the conservative ``μ − 3σ`` (openskill's ``ordinal``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, ClassVar

from .base import PlayerId, Rating, RatingChange, rounded
from .config import config_from_json, config_to_json, fingerprint, normalise_numbers

_NORMAL = NormalDist()


@dataclass(frozen=True)
class PlackettLuceSystem:
    """A ladder's openskill Plackett-Luce configuration; the parameters are openskill's own
    (defaults: μ 25, σ 25/3, β 25/6, κ 0.0001, τ 25/300)."""

    name: ClassVar[str] = "openskill"

    version: int = 1
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    kappa: float = 0.0001
    tau: float = 25.0 / 300.0
    limit_sigma: bool = False
    balance: bool = False
    provisional_games: int = 10

    def __post_init__(self) -> None:
        normalise_numbers(self, ("mu", "sigma", "beta", "kappa", "tau"), ("version", "provisional_games"))
        for flag in ("limit_sigma", "balance"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"{self.name} {flag} must be true or false")
        if self.sigma <= 0 or self.beta <= 0 or self.kappa <= 0 or self.tau < 0:
            raise ValueError(f"{self.name}: sigma, beta and kappa must be positive, tau ≥ 0")
        if self.provisional_games < 0 or self.version < 1:
            raise ValueError(f"{self.name}: provisional_games must be ≥ 0 and version ≥ 1")

    def initial_rating(self) -> Rating:
        return Rating(self.mu, self.sigma, 0)

    def is_provisional(self, rating: Rating) -> bool:
        """Shown as provisional while young; openskill's σ already makes early moves larger."""
        return rating.games < self.provisional_games

    def leaderboard_value(self, rating: Rating) -> float:
        """The conservative estimate μ − 3σ, openskill's ``ordinal()``."""
        return rounded(rating.mu - 3.0 * _sigma(rating))

    def to_json(self) -> dict[str, Any]:
        return config_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlackettLuceSystem:
        return config_from_json(cls, data)

    def fingerprint(self) -> str:
        return fingerprint(self)

    def rate(self, table: Sequence[tuple[PlayerId, Rating, int]]) -> list[RatingChange]:
        """Rate one table given in canonical order: (player, rating before, place) triples."""
        model = _model(self)
        teams = [[model.rating(mu=before.mu, sigma=_sigma(before))] for _, before, _ in table]
        result = model.rate(teams, ranks=[float(place) for _, _, place in table])

        two_beta_squared = 2.0 * self.beta * self.beta
        changes = []
        for i, (player, before, place) in enumerate(table):
            sigma_i = _sigma(before)
            expected = 1.0
            for j, (_, other, _) in enumerate(table):
                if j != i:
                    sigma_j = _sigma(other)
                    spread = math.sqrt(two_beta_squared + sigma_i * sigma_i + sigma_j * sigma_j)
                    expected += _NORMAL.cdf((other.mu - before.mu) / spread)
            updated = result[i][0]
            after = Rating(rounded(updated.mu), rounded(updated.sigma), before.games + 1)
            changes.append(RatingChange(player, before, after, rounded(expected), place))
        return changes


def _sigma(rating: Rating) -> float:
    if rating.sigma is None:
        raise ValueError(f"rating {rating} has no sigma: it is not an openskill rating")
    return rating.sigma


@functools.lru_cache(maxsize=32)
def _model(system: PlackettLuceSystem) -> Any:
    # Imported here so that Elo ladders and the rest of the package work without openskill.
    from openskill.models import PlackettLuce

    return PlackettLuce(
        mu=system.mu,
        sigma=system.sigma,
        beta=system.beta,
        kappa=system.kappa,
        tau=system.tau,
        limit_sigma=system.limit_sigma,
        balance=system.balance,
    )
