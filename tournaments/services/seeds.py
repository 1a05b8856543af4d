"""Seeds derived from a tournament's seed, so that a tournament replays identically."""

from __future__ import annotations

import hashlib
import random


def derive_seed(*parts: object) -> int:
    """A non-negative 63-bit integer from ``parts`` (stable across machines and versions)."""
    digest = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def derive_rng(*parts: object) -> random.Random:
    return random.Random(derive_seed(*parts))


def bot_seed(match_seed: int, position: int) -> int:
    """The seed of the bot at ``position`` of a match: its own, derived from the match's."""
    return derive_seed(match_seed, "bot", position)
