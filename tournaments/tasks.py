"""Celery tasks: short wrappers around plain functions, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from tournaments import matchplay


@shared_task(acks_late=True)
def play_bot_match(game: str, bots: list[str], seed: int, options: dict | None = None) -> dict:
    """Play one match between built-in bots through the engine; return
    {"scores": [...], "places": [...], "match": state.to_json()}.

    Stores nothing, so running it twice only plays the same (seeded) match twice.
    """
    return matchplay.play_bot_match(game, bots, seed, options)
