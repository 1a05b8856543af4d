"""A rating-history chart's geometry, for an inline SVG drawn by the template
(web/_rating_chart.html): plain numbers in, coordinates and axis ticks out. No Django."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Small enough that its 14 px text stays readable when a phone scales it down to fit.
WIDTH, HEIGHT = 440, 220
LEFT, RIGHT, TOP, BOTTOM = 56, 14, 30, 44  # room for the axes' numbers and names
MAX_POINTS = 400  # a longer history is drawn from an even sample of it (first and last kept)


@dataclass(frozen=True)
class Tick:
    value: float
    at: float  # x or y in the SVG's units
    decimals: int  # how many the label shows


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot: tuple[float, float, float, float]  # left, top, right, bottom of the plotting area
    line: str  # the polyline's points
    dots: list[tuple[float, float]]  # each game's point, when there are few enough to see
    last: tuple[float, float]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    first_rating: float
    last_rating: float
    low: float
    high: float
    games: int


def nice_step(span: float, ticks: int) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) giving about ``ticks`` intervals."""
    raw = span / max(ticks, 1)
    if raw <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 2.5, 5, 10):
        if multiple * magnitude >= raw:
            return multiple * magnitude
    return 10 * magnitude


def _decimals(step: float) -> int:
    """Decimals enough to tell two ticks ``step`` apart: 0 for 50, 1 for 2.5 and 0.5, 2 below."""
    for decimals in (0, 1):
        if abs(step * 10 ** decimals - round(step * 10 ** decimals)) < 1e-9:
            return decimals
    return 2


def _sample(points: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
    if len(points) <= MAX_POINTS:
        return list(points)
    last = len(points) - 1
    keep = sorted({round(i * last / (MAX_POINTS - 1)) for i in range(MAX_POINTS)})
    return [points[i] for i in keep]


def rating_chart(points: Sequence[tuple[int, float]]) -> Chart | None:
    """The chart of (rated games, rating) points, in the order played; None without any."""
    if not points:
        return None
    ratings = [r for _, r in points]
    low, high = min(ratings), max(ratings)
    y_step = nice_step(high - low or max(abs(high) * 0.02, 1.0), 4)
    y_lo = math.floor(low / y_step) * y_step
    y_hi = math.ceil(high / y_step) * y_step
    if y_hi - y_lo < y_step:
        y_lo, y_hi = y_lo - y_step, y_hi + y_step
    g_lo, g_hi = points[0][0], points[-1][0]
    if g_hi == g_lo:
        g_hi = g_lo + 1
    x_step = max(1, int(nice_step(g_hi - g_lo, 6)))
    left, top, right, bottom = LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM

    def x(games: float) -> float:
        return round(left + (games - g_lo) / (g_hi - g_lo) * (right - left), 1)

    def y(rating: float) -> float:
        return round(bottom - (rating - y_lo) / (y_hi - y_lo) * (bottom - top), 1)

    drawn = [(x(g), y(r)) for g, r in _sample(points)]
    y_decimals = _decimals(y_step)
    y_ticks = [Tick(v, y(v), y_decimals) for v in _range(y_lo, y_hi, y_step)]
    first_x_tick = math.ceil(g_lo / x_step) * x_step
    x_ticks = [Tick(v, x(v), 0) for v in _range(first_x_tick, g_hi, x_step)]
    return Chart(
        width=WIDTH, height=HEIGHT, plot=(left, top, right, bottom),
        line=" ".join(f"{px},{py}" for px, py in drawn),
        dots=drawn if len(drawn) <= 60 else [],
        last=drawn[-1], x_ticks=x_ticks, y_ticks=y_ticks,
        first_rating=ratings[0], last_rating=ratings[-1], low=low, high=high, games=points[-1][0],
    )


def _range(start: float, stop: float, step: float) -> list[float]:
    """start, start + step ... up to stop (inclusive, within rounding)."""
    n = int(math.floor((stop - start) / step + 1e-9))
    return [round(start + i * step, 10) for i in range(n + 1)]
