"""Exact multi-seat schedules: resolvable designs where every pair meets exactly once.

The affine plane of order q (q a prime power) has q² points and q + 1 parallel classes; each
class cuts the points into q lines of q points, and any two points lie on exactly one line.
Read as a round robin: q² entrants at q tables of q seats, q + 1 rounds, and every pair at one
table exactly once, the least rounds in which that is possible. Orders 3, 4, 5, 7 and 8 cover
the table sizes this service plays (3 to 8 seats; 6 is not a prime power, and no affine plane
of order 6 exists).
"""

from __future__ import annotations

from functools import cache

# GF(q) for the orders used: q prime (arithmetic mod q) or q = 2^k with an irreducible
# polynomial (elements as bit vectors, addition is xor).
_IRREDUCIBLE = {4: 0b111, 8: 0b1011}  # x² + x + 1, x³ + x + 1
AFFINE_ORDERS = (3, 4, 5, 7, 8)


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
def affine_plane(q: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The q + 1 parallel classes of the affine plane of order q, over the points 0..q²-1
    (point x·q + y is (x, y)): class m < q holds the lines y = m·x + b, class q the lines
    x = c. Each line lists its points in increasing order."""
    if q not in AFFINE_ORDERS:
        raise ValueError(f"no affine plane of order {q} here (orders: {AFFINE_ORDERS})")
    add, mul = _field(q)
    classes = []
    for m in range(q):
        lines = [[] for _ in range(q)]
        for x in range(q):
            for b in range(q):
                lines[b].append(x * q + add(mul(m, x), b))
        classes.append(tuple(tuple(sorted(line)) for line in lines))
    classes.append(tuple(tuple(c * q + y for y in range(q)) for c in range(q)))
    return tuple(classes)
