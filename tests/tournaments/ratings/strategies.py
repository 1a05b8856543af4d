"""Hypothesis strategies shared by the rating tests: tables of 2–8 seats with any ratings."""

from hypothesis import strategies as st

from tournaments.ratings import Rating


@st.composite
def tables(draw, *, openskill: bool = False, min_seats: int = 2, max_seats: int = 8):
    """(ratings, places) for one table: distinct player ids, places 1..N with possible ties."""
    n = draw(st.integers(min_seats, max_seats))
    players = draw(st.lists(st.integers(1, 10_000), min_size=n, max_size=n, unique=True))
    if openskill:
        mus = st.floats(0.0, 50.0)
        sigmas = st.floats(0.5, 9.0)
        ratings = {p: Rating(draw(mus), draw(sigmas), draw(st.integers(0, 40))) for p in players}
    else:
        mus = st.floats(600.0, 2600.0)
        ratings = {p: Rating(draw(mus), None, draw(st.integers(0, 40))) for p in players}
    places = {p: draw(st.integers(1, n)) for p in players}
    return ratings, places

