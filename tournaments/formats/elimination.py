"""Single and double elimination for two-seat games.

The bracket has P = the next power of two ≥ n places, filled in the standard seeding order
(1 v P, then 1's half holds 4 and 5 ... so seeds 1 and 2 can only meet in the final, 1-4 only
in the semi-finals); the P - n missing seeds are byes, which therefore fall to the top seeds.
Round 1's tables are issued in seed order of their better seed (seed b+1 v seed n, b+2 v n-1,
...), the better seed in seat 0, after the byes given in seed order; later rounds read the bracket
back from round 1's result, so the service must return round 1's tables and byes in the order
they were issued. Later rounds match results to tables by their entrants.

A table's winner is the entrant with the better place; on a shared place, the higher score; then
the better seed. An entrant who withdraws loses their next table by walkover: the opponent goes
through with a bye.

Double elimination: a loser drops to the losers' bracket; a second loss eliminates. Each format
round plays one winners' round and one losers' round side by side: losers' round 1 pairs the
losers of winners' round 1; even losers' rounds pair the survivors with the losers dropping from
the next winners' round (in reverse order every other time, so recent opponents do not meet
again at once); odd ones pair survivors among themselves. The grand final sets the winners'
champion against the losers' champion; with ``bracket_reset`` (default on) a second final is
played when the losers' champion wins the first, so nobody is eliminated with a single loss.

How far each entrant went (``reached``, which the standings rank by before any tie-break) is
read from the same replay of the bracket that makes the next round. The key is (format round,
stage): stage 0 = went out in that round (lost its last life there, or lost it by walkover after
withdrawing), 1 = still in with that round to play, 2 = won the last table of the bracket (the
champion). So the champion ranks first, the loser of the final (single) or of the grand final or
bracket reset (double) second, then everyone else by the round they went out in, latest first:
entrants out in the same format round share a key (both semi-final losers; in double
elimination everyone eliminated in that round of the losers' bracket). While the bracket is
being played, entrants still in rank above everyone out, together.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .base import EntrantId, Format, Reached, Round, RoundResult, Table, TableResult, check_bool

Slot = EntrantId | None


def seeding_positions(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a bracket of ``size`` (a power of two):
    [1, 8, 4, 5, 2, 7, 3, 6] for 8."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def bracket_size(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(n))) if n > 1 else 1


def round_one(seeds: Sequence[EntrantId]) -> tuple[list[Slot], Round]:
    """The bracket slots and the first round for entrants in seed order."""
    n = len(seeds)
    size = bracket_size(n)
    slots: list[Slot] = [seeds[s - 1] if s <= n else None for s in seeding_positions(size)]
    n_byes = size - n
    byes = tuple(seeds[:n_byes])
    tables = []
    for s in range(n_byes + 1, size // 2 + 1):
        tables.append(Table(seats=(seeds[s - 1], seeds[size - s]),
                            notes=(f"seed {s} v seed {size + 1 - s}",)))
    notes = [f"bye: {e} (seed {i + 1}; {n} entrants in a bracket of {size})"
             for i, e in enumerate(byes)]
    return slots, Round(number=1, tables=tuple(tables), byes=byes, notes=tuple(notes))


def seeds_from_round_one(first: RoundResult) -> list[EntrantId]:
    """Inverse of ``round_one``: the seed order from its issued tables and byes."""
    upper = [t.seats[0] for t in first.tables]
    lower = [t.seats[1] for t in first.tables]
    return list(first.byes) + upper + lower[::-1]


def first_round(entrants: Sequence[EntrantId]) -> Round | None:
    """Round 1 of a bracket for entrants in seed order; None for fewer than two."""
    return round_one(entrants)[1] if len(entrants) >= 2 else None


def bracket_from(history: Sequence[RoundResult]) -> tuple[list[EntrantId], dict[EntrantId, int], list[Slot]]:
    """The bracket round 1 set up, read back from it: seeds in order, each entrant's seed
    index (0 = best), and the first round's slots."""
    seeds = seeds_from_round_one(history[0])
    return seeds, {e: i for i, e in enumerate(seeds)}, round_one(seeds)[0]


def table_winner(result: TableResult, seed: dict[EntrantId, int]) -> tuple[EntrantId, EntrantId]:
    """(winner, loser): better place, then higher score, then better seed."""
    ranked = sorted(zip(result.seats, result.places, result.scores),
                    key=lambda r: (r[1], -r[2], seed.get(r[0], len(seed))))
    return ranked[0][0], ranked[1][0]


Play = Callable[[Slot, Slot, str], tuple[Slot, Slot]]


def resolver(result: RoundResult, seed: dict[EntrantId, int]) -> Play:
    """Decide each bracket pairing of a played round from its result."""
    by_entrant = {e: t for t in result.tables for e in t.seats}
    went_through = set(result.byes)

    def play(a: Slot, b: Slot, label: str) -> tuple[Slot, Slot]:
        table = by_entrant.get(a) if a is not None else None
        table = table or (by_entrant.get(b) if b is not None else None)
        if table is not None:
            return table_winner(table, seed)
        for x, y in ((a, b), (b, a)):
            if x is not None and x in went_through:
                return x, y
        return None, None  # both gone

    return play


def issuer(present: set[EntrantId], seed: dict[EntrantId, int]
           ) -> tuple[Play, list[Table], list[EntrantId], list[str]]:
    """A ``Play`` that issues tables for a round to come; returns placeholders."""
    tables: list[Table] = []
    byes: list[EntrantId] = []
    notes: list[str] = []

    def play(a: Slot, b: Slot, label: str) -> tuple[Slot, Slot]:
        a = a if a in present else None
        b = b if b in present else None
        if a is not None and b is not None:
            x, y = sorted((a, b), key=lambda e: seed.get(e, len(seed)))
            tables.append(Table(seats=(x, y), notes=(label,)))
        elif a is not None or b is not None:
            e = a if a is not None else b
            byes.append(e)
            notes.append(f"bye: {e} ({label}: no opponent left)")
        return None, None

    return play, tables, byes, notes


def pair_up(slots: list[Slot], play: Play, label: str) -> tuple[list[Slot], list[Slot]]:
    winners, losers = [], []
    for i in range(0, len(slots), 2):
        winner, loser = play(slots[i], slots[i + 1], label)
        winners.append(winner)
        losers.append(loser)
    return winners, losers


def round_label(n_slots: int) -> str:
    """The name of a single-elimination round with ``n_slots`` places left in the bracket."""
    return {2: "final", 4: "semi-final", 8: "quarter-final"}.get(n_slots, f"round of {n_slots}")


# --- how far each entrant went -----------------------------------------------------------------

# Second part of a ``Reached`` key: what happened in the round of its first part.
LOST, TO_PLAY, WON = 0, 1, 2


def _out_label(label: str) -> str:
    """'lost the final', 'out in the semi-final', 'out in losers' round 3'."""
    if label in ("final", "grand final"):
        return f"lost the {label}"
    if label == "bracket reset":
        return "lost the grand final (bracket reset)"
    article = "" if "'" in label else "the "  # "winners' round 2" takes none
    return f"out in {article}{label}"


class _Track:
    """Watches a replay of the bracket for ``reached``: the last pairing each entrant was part of
    and the format round in which it left the bracket."""

    def __init__(self) -> None:
        self.label: dict[EntrantId, str] = {}
        self.out: dict[EntrantId, int] = {}

    def watch(self, play: Play) -> Play:
        def watched(a: Slot, b: Slot, label: str) -> tuple[Slot, Slot]:
            for e in (a, b):
                if e is not None:
                    self.label[e] = label
            return play(a, b, label)

        return watched

    def after(self, t: int, alive: set[EntrantId]) -> None:
        """Format round ``t`` is played: whoever had been paired and is no longer anywhere in
        the bracket went out in it. (Comparing who is left, rather than counting losses, also
        covers both sides of a pairing gone by withdrawal and the grand final without reset.)"""
        for e in self.label:
            if e not in alive and e not in self.out:
                self.out[e] = t

    def went_out(self, history: Sequence[RoundResult]) -> dict[EntrantId, Reached]:
        out = {}
        for e, t in self.out.items():
            label = _out_label(self.label[e])
            seated = t <= len(history) and any(e in table.seats for table in history[t - 1].tables)
            out[e] = Reached(key=(t, LOST), label=label if seated else f"{label} (walkover)")
        return out


def _not_started(entrants: Sequence[EntrantId]) -> dict[EntrantId, Reached]:
    return {e: Reached(key=(1, TO_PLAY), label="still in (round 1)") for e in entrants}


def _outside(reached: dict[EntrantId, Reached], entrants: Sequence[EntrantId],
             history: Sequence[RoundResult]) -> dict[EntrantId, Reached]:
    """Give anyone the bracket does not hold (not in round 1) the lowest key."""
    everyone = list(entrants) + [e for rnd in history for t in rnd.tables for e in t.seats]
    everyone += [e for rnd in history for e in rnd.byes]
    for e in everyone:
        reached.setdefault(e, Reached(key=(0, LOST), label="not in the bracket"))
    return reached


def _present(slots: Sequence[Slot]) -> set[EntrantId]:
    return {e for e in slots if e is not None}


@dataclass(frozen=True)
class SingleElimination(Format):
    """Knockout for two seats; the loser of each table is out."""

    name = "single_elimination"

    def planned_rounds(self, n_entrants: int) -> int | None:
        return max(0, math.ceil(math.log2(n_entrants))) if n_entrants > 1 else 0

    def _replay(self, history: list[RoundResult], track: _Track | None = None
                ) -> tuple[dict[EntrantId, int], list[Slot], int]:
        """The bracket after the rounds played: seed indices, the slots left, rounds replayed."""
        _, seed, slots = bracket_from(history)
        played = 0
        for rnd in history:
            if len(slots) == 1:
                break  # the final is played
            play = resolver(rnd, seed)
            slots, _ = pair_up(slots, track.watch(play) if track else play, round_label(len(slots)))
            played += 1
            if track:
                track.after(played, _present(slots))
        return seed, slots, played

    def _upcoming(self, entrants: Sequence[EntrantId], seed: dict[EntrantId, int],
                  slots: list[Slot], number: int) -> Round | None:
        """Round ``number`` from the bracket's slots, or None: the stage is over."""
        if len(slots) == 1:
            return None
        play, tables, byes, notes = issuer(set(entrants), seed)
        label = round_label(len(slots))
        pair_up(slots, play, label)
        if not tables and len(byes) <= 1:
            return None  # walkovers left a single entrant: the stage is over
        return Round(number=number, tables=tuple(tables), byes=tuple(byes),
                     notes=tuple(notes) + (label,))

    def _next_round(self, entrants, history, rng):
        if not history:
            return first_round(entrants)
        seed, slots, played = self._replay(history)
        return self._upcoming(entrants, seed, slots, played + 1)

    def _reached(self, entrants, history):
        """Out in round r: (r, 0). Still in with round r to play: (r, 1); an entrant still in
        who has withdrawn will lose round r by walkover: (r, 0). The champion: (r, 2), r the
        round of the final (or the round walkovers left it alone in)."""
        if not history:
            return _not_started(entrants)
        track = _Track()
        seed, slots, played = self._replay(history, track)
        reached = track.went_out(history)
        present = set(entrants)
        if len(slots) == 1:
            if slots[0] is not None:
                reached[slots[0]] = Reached(key=(played, WON), label="champion")
        else:
            over = self._upcoming(entrants, seed, slots, played + 1) is None
            label = round_label(len(slots))
            for e in _present(slots):
                if e not in present:
                    reached[e] = Reached(key=(played + 1, LOST), label=f"withdrew before the {label}")
                elif over:  # every opponent left has withdrawn
                    reached[e] = Reached(key=(played + 1, WON), label="champion (opponents withdrew)")
                else:
                    reached[e] = Reached(key=(played + 1, TO_PLAY), label=f"still in ({label})")
        return _outside(reached, entrants, history)


@dataclass
class _Double:
    """The state of a double-elimination bracket between format rounds."""

    k: int
    winners: list[Slot]
    losers: list[Slot] = field(default_factory=list)
    drops: dict[int, list[Slot]] = field(default_factory=dict)  # waiting for the losers' bracket
    final: tuple[Slot, Slot] | None = None  # (winners' champion, losers' champion)
    reset: tuple[Slot, Slot] | None = None
    champion: Slot = None
    done: bool = False

    def alive(self) -> set[EntrantId]:
        """Everyone the bracket still holds: in either bracket, dropped and waiting for the
        losers' bracket, or due in the bracket reset."""
        if self.done:
            return _present([self.champion])
        waiting = [e for dropped in self.drops.values() for e in dropped]
        return _present(self.winners + self.losers + waiting + list(self.reset or ()))


@dataclass(frozen=True)
class DoubleElimination(Format):
    """Two losses to go out; winners' and losers' brackets and a grand final."""

    name = "double_elimination"
    bracket_reset: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        check_bool("bracket_reset", self.bracket_reset)

    def planned_rounds(self, n_entrants: int) -> int | None:
        """Without the reset final (it is played only if needed, one more round)."""
        if n_entrants < 2:
            return 0
        return 2 * math.ceil(math.log2(n_entrants))

    def _step(self, st: _Double, t: int, play: Play) -> None:
        """Play format round ``t`` (1-based) of the bracket through ``play``."""
        k = st.k
        if t == 2 * k + 1:
            w, _ = play(st.reset[0], st.reset[1], "bracket reset")
            st.champion, st.done = w, True
            return
        if t == 2 * k:
            wc = st.winners[0]
            # Drops leave ``drops`` when the losers' bracket takes them, so ``alive`` is exact.
            lc = st.losers[0] if k > 1 else st.drops.pop(1)[0]
            st.final = (wc, lc)
            w, _ = play(wc, lc, "grand final")
            if w is not None and w == lc and lc is not None and wc is not None \
                    and self.bracket_reset:
                st.reset = (wc, lc)
            else:
                st.champion, st.done = w, True
            return
        if t <= k:
            st.winners, dropped = pair_up(st.winners, play, f"winners' round {t}")
            st.drops[t] = dropped
        r = t - 1
        if 1 <= r <= 2 * (k - 1):
            label = f"losers' round {r}"
            if r == 1:
                st.losers, _ = pair_up(st.drops.pop(1), play, label)
            elif r % 2 == 0:
                i = r // 2
                drop = st.drops.pop(i + 1)
                drop = drop[::-1] if i % 2 else drop
                mixed = [x for pair in zip(st.losers, drop) for x in pair]
                st.losers, _ = pair_up(mixed, play, label)
            else:
                st.losers, _ = pair_up(st.losers, play, label)

    def _replay(self, history: list[RoundResult], track: _Track | None = None
                ) -> tuple[_Double, dict[EntrantId, int], int]:
        """The bracket after the rounds played: its state, seed indices, rounds replayed."""
        seeds, seed, slots = bracket_from(history)
        st = _Double(k=int(math.log2(bracket_size(len(seeds)))), winners=slots)
        played = 0
        for rnd in history:
            played += 1
            play = resolver(rnd, seed)
            self._step(st, played, track.watch(play) if track else play)
            if track:
                track.after(played, st.alive())
            if st.done:
                break
        return st, seed, played

    def _upcoming(self, entrants: Sequence[EntrantId], st: _Double, seed: dict[EntrantId, int],
                  number: int, track: _Track | None = None) -> Round | None:
        """Format round ``number`` of the bracket in state ``st``, or None: the stage is over."""
        if st.done:
            return None
        play, tables, byes, notes = issuer(set(entrants), seed)
        self._step(copy.deepcopy(st), number, play)
        if not tables:
            # Only walkovers this round (withdrawals): finished if they decide the champion,
            # otherwise a round of byes alone, so the bracket's round numbers stay in step.
            # Either way the walkovers are played into ``st`` at once.
            play = resolver(RoundResult(number, (), tuple(byes)), seed)
            self._step(st, number, track.watch(play) if track else play)
            if track:
                track.after(number, st.alive())
            if st.done:
                return None
        return Round(number=number, tables=tuple(tables), byes=tuple(byes), notes=tuple(notes))

    def _next_round(self, entrants, history, rng):
        if not history:
            return first_round(entrants)
        st, seed, played = self._replay(history)
        return self._upcoming(entrants, st, seed, played + 1)

    def _reached(self, entrants, history):
        """Out (second loss, or the grand final lost without a reset to come) in format round
        t: (t, 0). Still in with round t to play: (t, 1); still in but withdrawn: (t, 0). The
        champion: (t, 2), t the round of the last final. The grand final is the only table of
        its round, so its loser ranks second alone."""
        if not history:
            return _not_started(entrants)
        track = _Track()
        st, seed, played = self._replay(history, track)
        number = played + 1
        # The champion is decided in the last round played, or by walkovers in the one after.
        decided = played if st.done else number
        upcoming = self._upcoming(entrants, st, seed, number, track)
        reached = track.went_out(history)
        if st.done:
            if st.champion is not None:
                reached[st.champion] = Reached(key=(decided, WON), label="champion")
            return _outside(reached, entrants, history)
        if not upcoming.tables:
            number += 1  # a round of walkovers alone is over as soon as it is made
        present = set(entrants)
        for e in st.alive():
            if e not in present:
                reached[e] = Reached(key=(number, LOST), label=f"withdrew before round {number}")
                continue
            if st.reset:
                where = "bracket reset"
            elif number >= 2 * st.k:
                where = "grand final"
            else:
                where = "winners' bracket" if e in st.winners else "losers' bracket"
            reached[e] = Reached(key=(number, TO_PLAY), label=f"still in ({where}, round {number})")
        return _outside(reached, entrants, history)
