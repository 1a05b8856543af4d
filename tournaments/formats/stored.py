"""The format a tournament's stored settings describe: its ``format``, ``format_config``,
``table_size``, ``duplicate`` and ``points_by_place``, checked and made into a
:class:`~tournaments.formats.Format`. A read that services (making rounds, checking a new
tournament's settings) and selectors (standings: how far in a bracket) share, so it lives below
both; it writes nothing, and refuses bad settings with a ServiceError naming the field."""

from __future__ import annotations

import dataclasses
from typing import Protocol

from tournaments import formats
from tournaments.errors import ServiceError
from tournaments.formats.base import check_points, default_points_by_place


class StoredFormat(Protocol):
    """What a tournament (tournaments.models.Tournament) stores of its format."""

    format: str
    format_config: dict
    table_size: int
    duplicate: bool
    points_by_place: list | None


def stored_format(name: str, config: dict, table_size: int, duplicate: bool, points_by_place: list | None = None):
    """The tournament's format. One that scores (the Swiss: ``points``, ``bye_points``) scores as
    the published standings do: the tournament's ``points_by_place`` (None or empty: the default,
    N − place) and the standings' default bye value, whatever ``format_config`` says (a new
    tournament's may only repeat them: :func:`services.tournaments.check_format`)."""
    if name not in formats.FORMATS:
        raise ServiceError(f"format must be one of {', '.join(sorted(formats.FORMATS))}", "format")
    if not isinstance(config, dict):
        raise ServiceError("format_config must be an object", "format_config")
    for reserved in ("seats", "duplicate"):
        if reserved in config:
            raise ServiceError(f"set {reserved!r} as the tournament's {'table_size' if reserved == 'seats' else reserved}, "
                               "not in format_config", "format_config")
    fields = {f.name for f in dataclasses.fields(formats.FORMATS[name])}
    if "seats" in fields:
        config = {**config, "seats": table_size}
    elif table_size != 2:
        raise ServiceError(f"{name} is played at tables of 2, not {table_size}", "table_size")
    if "points" in fields:
        points = list(points_by_place or default_points_by_place(table_size))
        try:
            check_points("points_by_place", points, table_size)
        except ValueError as exc:
            raise ServiceError(f"{exc}: the {name} pairs on the standings' points", "points_by_place") from None
        config = {**config, "points": tuple(points), "bye_points": None}
    try:
        return formats.make_format(name, duplicate=duplicate, **config)
    except (TypeError, ValueError) as exc:
        raise ServiceError(str(exc), "format_config") from None


def tournament_format(tournament: StoredFormat) -> formats.Format:
    """The format that makes ``tournament``'s rounds, configured as the tournament says."""
    return stored_format(tournament.format, tournament.format_config, tournament.table_size, tournament.duplicate,
                         tournament.points_by_place)
