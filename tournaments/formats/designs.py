"""Exact multi-seat schedules: resolvable designs, where every pair meets exactly once.

A resolvable design on n points with blocks of k is a list of parallel classes, each cutting
the points into n/k blocks, such that any two points share exactly one block. Read as a round
robin: n entrants at tables of k, (n - 1)/(k - 1) rounds (the least in which everyone can meet
everyone), and every pair at one table exactly once. Known here:

* the affine space AG(d, q), q a prime power: q^d points, its lines as blocks of q, one
  parallel class per direction. Orders 3, 4, 5, 7, 8 cover the table sizes played here (6 is
  no prime power): 9, 27, 81 entrants at tables of 3; 16, 64 at 4; 25, 125 at 5; 49 at 7; 64
  at 8;
* Kirkman's fifteen schoolgirls: 15 at tables of 3 in 7 rounds (found by search, checked by
  the tests).
"""

from __future__ import annotations

import itertools
from functools import cache

# GF(q) for the orders used: q prime (arithmetic mod q) or q = 2^k with an irreducible
# polynomial (elements as bit vectors, addition is xor).
_IRREDUCIBLE = {4: 0b111, 8: 0b1011}  # x² + x + 1, x³ + x + 1
AFFINE_ORDERS = (3, 4, 5, 7, 8)
MAX_POINTS = 200  # the largest field the formats are tested for

Design = tuple[tuple[tuple[int, ...], ...], ...]  # parallel classes of blocks of points

KIRKMAN_15: Design = (
    ((3, 4, 9), (0, 2, 11), (1, 6, 12), (5, 10, 13), (7, 8, 14)),
    ((0, 5, 6), (1, 9, 11), (2, 7, 13), (3, 10, 14), (4, 8, 12)),
    ((0, 1, 8), (2, 9, 14), (3, 12, 13), (4, 5, 7), (6, 10, 11)),
    ((0, 3, 7), (1, 5, 14), (2, 4, 6), (8, 11, 13), (9, 10, 12)),
    ((0, 4, 10), (1, 2, 3), (5, 8, 9), (6, 13, 14), (7, 11, 12)),
    ((0, 12, 14), (1, 4, 13), (2, 8, 10), (3, 5, 11), (6, 7, 9)),
    ((0, 9, 13), (1, 7, 10), (2, 5, 12), (3, 6, 8), (4, 11, 14)),
)


def _field(q: int):
    """(add, mul) of GF(q) on the integers 0..q-1."""
    if q in _IRREDUCIBLE:
        poly, bits = _IRREDUCIBLE[q], q.bit_length() - 1

        def mul(a: int, b: int) -> int:
            product = 0
            while b:
                if b & 1:
                    product ^= a
                b >>= 1
                a <<= 1
                if a >> bits:
                    a ^= poly
            return product

        return (lambda a, b: a ^ b), mul
    return (lambda a, b: (a + b) % q), (lambda a, b: (a * b) % q)


@cache
def affine_space(q: int, d: int) -> Design:
    """The parallel classes of AG(d, q) over the points 0..q^d - 1 (a point's coordinates are
    its base-q digits): one class per direction (a nonzero vector whose first nonzero
    coordinate is 1), holding the lines {p + t·v}. Blocks and classes in increasing order."""
    if q not in AFFINE_ORDERS:
        raise ValueError(f"no affine space of order {q} here (orders: {AFFINE_ORDERS})")
    add, mul = _field(q)
    points = list(itertools.product(range(q), repeat=d))
    index = {p: i for i, p in enumerate(points)}
    directions = [v for v in points if any(v) and next(x for x in v if x) == 1]
    classes = []
    for v in directions:
        seen: set[int] = set()
        lines = []
        for p in points:
            if index[p] in seen:
                continue
            line = tuple(sorted(index[tuple(add(p[k], mul(t, v[k])) for k in range(d))] for t in range(q)))
            seen.update(line)
            lines.append(line)
        classes.append(tuple(sorted(lines)))
    return tuple(classes)


@cache
def resolvable_design(n: int, k: int) -> tuple[str, Design] | None:
    """(name, parallel classes) of a known resolvable design of ``n`` points in blocks of
    ``k``, or None."""
    if n == 15 and k == 3:
        return "Kirkman's fifteen schoolgirls", KIRKMAN_15
    if k in AFFINE_ORDERS and n <= MAX_POINTS:
        d, size = 1, k
        while size < n:
            d, size = d + 1, size * k
        if size == n and d >= 2:
            return f"the affine {'plane' if d == 2 else 'space'} AG({d}, {k})", affine_space(k, d)
    return None
