"""Rating ladders: created with a frozen configuration, updated one round at a time in a
serialised step per ladder, and rebuilt from history on demand."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Min

import engine
from tournaments import ratings
from tournaments.models import Match, Rating, RatingChange, RatingLadder, Round, Seat

from .errors import ServiceError


@transaction.atomic
def ladder_create(*, slug: str, name: str, game: str, system: str = "elo", config: dict | None = None) -> RatingLadder:
    """A new ladder, or a new version of ``slug`` when its configuration differs from the
    latest version's (a ladder's configuration never changes once created)."""
    try:
        engine.game(game)
    except engine.UnknownGame as exc:
        raise ServiceError(str(exc), "game") from None
    if system not in ratings.SYSTEMS:
        raise ServiceError(f"system must be one of {', '.join(sorted(ratings.SYSTEMS))}", "system")
    try:
        rating_system = ratings.system_from_json({**(config or {}), "system": system})
    except (TypeError, ValueError) as exc:
        raise ServiceError(str(exc), "config") from None
    frozen = rating_system.to_json()
    fingerprint = rating_system.fingerprint()
    latest = RatingLadder.objects.select_for_update().filter(slug=slug).order_by("-version").first()
    if latest is not None:
        if latest.game != game:
            raise ServiceError(f"ladder {slug} rates {latest.game}, not {game}", "game")
        if latest.config_hash == fingerprint:
            return latest
    version = 1 if latest is None else latest.version + 1
    return RatingLadder.objects.create(
        slug=slug, version=version, name=name, game=game, system=system, config=frozen, config_hash=fingerprint
    )


def ladder_system(ladder: RatingLadder) -> ratings.RatingSystem:
    return ratings.system_from_json(ladder.config)


def _rating_value(row: Rating) -> ratings.Rating:
    return ratings.Rating(mu=row.mu, sigma=row.sigma, games=row.games)


def ladder_apply_round(*, ladder_id: int, rnd: Round) -> int:
    """Rate a finished round's matches, in table order, serialised on the ladder's row.
    Matches already rated on this ladder are skipped, so applying twice changes nothing.
    Returns the number of matches rated."""
    ladder = RatingLadder.objects.select_for_update().get(pk=ladder_id)
    system = ladder_system(ladder)
    matches = list(rnd.matches.filter(status=Match.Status.FINISHED).order_by("table"))
    done = set(RatingChange.objects.filter(ladder=ladder, match__in=matches).values_list("match_id", flat=True))
    rated = 0
    for match in matches:
        if match.pk in done:
            continue
        places = dict(Seat.objects.filter(match=match).values_list("player_id", "place"))
        if len(places) < 2:
            continue
        current = {
            row.player_id: _rating_value(row)
            for row in Rating.objects.select_for_update().filter(ladder=ladder, player_id__in=places)
        }
        changes = ratings.rate_match(system, current, places)
        _write_changes(ladder, match, changes)
        rated += 1
    return rated


def _write_changes(ladder: RatingLadder, match: Match, changes: list[ratings.RatingChange]) -> None:
    sequence = ladder.applied
    rows = []
    for change in changes:
        sequence += 1
        rows.append(
            RatingChange(
                ladder=ladder, match=match, player_id=change.player, sequence=sequence,
                before_mu=change.before.mu, before_sigma=change.before.sigma,
                after_mu=change.after.mu, after_sigma=change.after.sigma, games=change.after.games,
                expected_place=change.expected_place, actual_place=change.actual_place,
            )
        )
        Rating.objects.update_or_create(
            ladder=ladder, player_id=change.player,
            defaults={"mu": change.after.mu, "sigma": change.after.sigma, "games": change.after.games},
        )
    RatingChange.objects.bulk_create(rows)
    ladder.applied = sequence
    ladder.save(update_fields=["applied"])


@dataclass(frozen=True)
class Recomputed:
    ladder: RatingLadder
    matches: int
    differences: list[str]  # empty: the stored ledger is exactly what history gives
    written: bool


def ladder_recompute(*, ladder: RatingLadder, write: bool = False) -> Recomputed:
    """Rebuild the ladder from the recorded results alone, in the order its matches were
    applied (round by round, table by table), and compare it with the stored ledger; with
    ``write``, replace the ledger and the current ratings by the rebuilt ones."""
    with transaction.atomic():
        ladder = RatingLadder.objects.select_for_update().get(pk=ladder.pk)
        system = ladder_system(ladder)
        first = (
            RatingChange.objects.filter(ladder=ladder)
            .values("match_id")
            .annotate(first=Min("sequence"))
            .order_by("first")
        )
        order = [row["match_id"] for row in first]
        history = []
        for position, match_id in enumerate(order):
            places = dict(Seat.objects.filter(match_id=match_id).values_list("player_id", "place"))
            history.append(((position, match_id), places))
        final, ledger = ratings.replay_ladder(system, history)
        stored = {
            (c.match_id, c.player_id): c for c in RatingChange.objects.filter(ladder=ladder)
        }
        differences = []
        for rated in ledger:
            match_id = rated.order_key[1]
            for change in rated.changes:
                row = stored.get((match_id, change.player))
                if row is None:
                    differences.append(f"match {match_id} player {change.player}: missing from the ledger")
                elif (row.after_mu, row.after_sigma, row.before_mu) != (change.after.mu, change.after.sigma, change.before.mu):
                    differences.append(
                        f"match {match_id} player {change.player}: stored {row.after_mu!r}, history gives {change.after.mu!r}"
                    )
        if write and differences:
            RatingChange.objects.filter(ladder=ladder).delete()
            Rating.objects.filter(ladder=ladder).delete()
            ladder.applied = 0
            for rated in ledger:
                _write_changes(ladder, Match.objects.get(pk=rated.order_key[1]), list(rated.changes))
        return Recomputed(ladder, len(ledger), differences, bool(write and differences))
