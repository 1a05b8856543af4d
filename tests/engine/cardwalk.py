"""Helpers for the engine's information tests."""

from __future__ import annotations

from typing import Any


def card_codes(value: Any, deck: frozenset[str], skip_keys: frozenset[str] = frozenset()) -> set[str]:
    """Every string in a JSON-ready value that is a card code of ``deck``."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in deck:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(v for k, v in item.items() if k not in skip_keys)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found
