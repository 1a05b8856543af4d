"""Rating ladders: created with a frozen configuration, updated one round at a time in a
serialised step per ladder, and rebuilt from history on demand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Min
from django.utils import timezone

import engine
from tournaments import limits, ratings
from tournaments.errors import ServiceError
from tournaments.models import Match, Rating, RatingChange, RatingLadder, Round, Seat

from .bulk import bulk_set


@transaction.atomic
def ladder_create(
    *, slug: str, name: str, game: str, system: str = "elo", config: dict | None = None, owner=None
) -> RatingLadder:
    """A new ladder, owned by ``owner``, or a new version of ``slug`` when its configuration
    differs from the latest version's (a ladder's configuration never changes once created).
    A new version keeps the latest one's owner and organisers (who may make one is the API's
    rule: tournaments.permissions.may_use_ladder)."""
    try:
        engine.game(game)
    except engine.UnknownGame as exc:
        raise ServiceError(str(exc), "game") from None
    if system not in ratings.SYSTEMS:  # only today's names: a stored one is the migrations' to read
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
    ladder = RatingLadder.objects.create(
        slug=slug, version=version, name=name, game=game, system=system, config=frozen, config_hash=fingerprint,
        owner=owner if latest is None else latest.owner,
    )
    if latest is not None:
        ladder.organisers.set(latest.organisers.all())
    return ladder


def ladder_rename(*, ladder: RatingLadder, name: str) -> RatingLadder:
    """Give a ladder a new name: the one thing of a ladder that changes (its slug, game, system
    and configuration are what its ratings rest on: a new configuration is a new version)."""
    limits.check_text(name, "name", RatingLadder._meta.get_field("name").max_length)
    name = name.strip()
    if not name:
        raise ServiceError("a ladder's name is not empty", "name")
    RatingLadder.objects.filter(pk=ladder.pk).update(name=name)
    ladder.name = name
    return ladder


def ladder_system(ladder: RatingLadder) -> ratings.RatingSystem:
    return ratings.system_from_json(ladder.config)


def board_line(system: ratings.RatingSystem, rating: ratings.Rating) -> tuple[float, bool]:
    """What the leaderboard shows of a rating: the system's leaderboard value, and whether the
    rating is still provisional."""
    return system.leaderboard_value(rating), system.is_provisional(rating)


def _rating_value(row: Rating) -> ratings.Rating:
    return ratings.Rating(mu=row.mu, sigma=row.sigma, games=row.games)


def ladder_apply_rounds(*, ladder_id: int, rounds: Sequence[Round]) -> int:
    """Rate finished rounds' matches, round by round and table by table, serialised on the
    ladder's row. Matches already rated on this ladder are skipped, so applying twice changes
    nothing. Returns the number of matches rated. A few queries however many rounds: their
    seats, the current ratings of their players, then the ledger and the ratings in bulk."""
    ladder = RatingLadder.objects.select_for_update().get(pk=ladder_id)
    tables: dict[tuple[int, int, int], dict[int, int]] = {}
    for match_id, number, table, player_id, place in (
        Seat.objects.filter(match__round__in=[rnd.pk for rnd in rounds], match__status=Match.Status.FINISHED)
        .exclude(match__rating_changes__ladder=ladder)  # rated already
        .values_list("match_id", "match__round__number", "match__table", "player_id", "place")
    ):
        tables.setdefault((number, table, match_id), {})[player_id] = place
    history = [(key, places) for key, places in tables.items() if len(places) >= 2]
    if not history:
        return 0
    rows = {
        row.player_id: row
        for row in Rating.objects.select_for_update().filter(
            ladder=ladder, player_id__in={player for _, places in history for player in places}
        )
    }
    _, ledger = ratings.replay_ladder(
        ladder_system(ladder), history, initial={player: _rating_value(row) for player, row in rows.items()}
    )
    _write_ledger(ladder, [(rated.order_key[-1], rated.changes) for rated in ledger], rows)
    return len(ledger)


def _write_ledger(
    ladder: RatingLadder, rated: list[tuple[int, tuple[ratings.RatingChange, ...]]], existing: dict[int, Rating]
) -> None:
    """Append matches' rating changes (match id, changes; in the order applied) to the ledger
    and set the players' current ratings to their last change. ``existing`` holds the
    ladder's current rating rows of (at least) the players rated, keyed by player."""
    sequence = ladder.applied
    rows = []
    latest: dict[int, ratings.RatingChange] = {}
    for match_id, changes in rated:
        for change in changes:
            sequence += 1
            rows.append(
                RatingChange(
                    ladder=ladder, match_id=match_id, player_id=change.player, sequence=sequence,
                    before_mu=change.before.mu, before_sigma=change.before.sigma,
                    after_mu=change.after.mu, after_sigma=change.after.sigma, games=change.after.games,
                    expected_place=change.expected_place, actual_place=change.actual_place,
                )
            )
            latest[change.player] = change
    fresh = []
    now = timezone.now()  # bulk_update does not touch auto_now fields
    system = ladder_system(ladder)
    for player, change in latest.items():
        row = existing.get(player) or Rating(ladder=ladder, player_id=player)
        row.mu, row.sigma, row.games, row.updated_at = change.after.mu, change.after.sigma, change.after.games, now
        row.value, row.provisional = board_line(system, change.after)
        if row.pk is None:
            fresh.append(row)
    bulk_set([existing[p] for p in latest if p in existing],
             ["mu", "sigma", "games", "value", "provisional", "updated_at"])
    Rating.objects.bulk_create(fresh)
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
            # The rebuilt ledger is numbered on from the old one: ``applied`` only grows, so
            # each value names one state of the ladder's ratings (what caches of the board key on).
            _write_ledger(ladder, [(rated.order_key[1], rated.changes) for rated in ledger], {})
        return Recomputed(ladder, len(ledger), differences, bool(write and differences))
