"""A ladder's configuration: frozen, serialisable to a JSON dict, and fingerprinted.

A ladder keeps the configuration it was created with. Changing a parameter means a new
configuration with a higher ``version`` (and, in the service, a new ladder or a recompute), never
an edit in place; the fingerprint lets the service check that the configuration it replays with
is the one the ledger was written with.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any


def config_to_json(config: Any) -> dict[str, Any]:
    """``{"system": name, "version": n, <every parameter>}``: plain JSON types only."""
    data: dict[str, Any] = {"system": config.name}
    for field in dataclasses.fields(config):
        data[field.name] = getattr(config, field.name)
    return data


def config_from_json(cls: type, data: dict[str, Any]) -> Any:
    """Build ``cls`` from ``config_to_json``'s output; unknown keys are an error, not ignored,
    so a configuration from a newer release is never silently replayed with other rules."""
    data = dict(data)
    system = data.pop("system", cls.name)
    if system != cls.name:
        raise ValueError(f"configuration is for {system!r}, not {cls.name!r}")
    known = {field.name for field in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown {cls.name} parameter(s): {', '.join(unknown)}")
    return cls(**data)


def fingerprint(config: Any) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces): equal configurations, equal hash."""
    text = json.dumps(config_to_json(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def normalise_numbers(config: Any, floats: tuple[str, ...], ints: tuple[str, ...]) -> None:
    """Store ``24`` as ``24.0`` (and ``10.0`` games as ``10``) so that one configuration has one
    JSON form and one fingerprint; called from ``__post_init__`` of the frozen dataclasses."""
    for name in floats:
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{config.name} {name} must be a number, not {value!r}")
        object.__setattr__(config, name, float(value))
    for name in ints:
        value = getattr(config, name)
        if isinstance(value, bool) or value != int(value):
            raise TypeError(f"{config.name} {name} must be a whole number, not {value!r}")
        object.__setattr__(config, name, int(value))
