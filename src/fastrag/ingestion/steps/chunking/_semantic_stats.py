"""Breakpoint statistics of LangChain Experimental's ``SemanticChunker``, in plain Python.

The base install has no third-party dependency, so numpy is not available to mirror
LangChain's ``np.percentile`` / ``np.mean`` / ``np.std`` / ``np.gradient`` calls. These
functions hand-write the same float64 arithmetic in the same order — numpy's pairwise
summation, its ``linear`` percentile with its two-sided ``lerp``, population standard
deviation, unit-spacing gradient with first-order edges — so that, given the same
distances, every threshold equals numpy's bit for bit (the tests check it against numpy).
Cosine distances cannot be bit-identical to a BLAS dot product; they are computed with
correctly rounded sums instead, which can differ from LangChain's only in the last bits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, Literal

__all__ = [
    "DEFAULT_AMOUNTS",
    "ThresholdType",
    "breakpoints",
    "cosine_distances",
    "gradient",
    "mean",
    "percentile",
    "std",
    "strongest",
]

ThresholdType = Literal["percentile", "standard_deviation", "interquartile", "gradient"]

DEFAULT_AMOUNTS: Final[dict[str, float]] = {
    "percentile": 95,
    "standard_deviation": 3,
    "interquartile": 1.5,
    "gradient": 95,
}
"""LangChain Experimental's ``BREAKPOINT_DEFAULTS``."""

_BLOCK: Final = 128
"""numpy's ``PW_BLOCKSIZE``: below it, eight running sums; above it, halves recursively."""


def _pairwise_sum(values: Sequence[float], start: int, count: int) -> float:
    """numpy's ``pairwise_sum_DOUBLE`` over ``values[start:start + count]``."""
    if count < 8:
        total = 0.0
        for index in range(start, start + count):
            total += values[index]
        return total
    if count <= _BLOCK:
        sums = [values[start + lane] for lane in range(8)]
        index = 8
        whole = count - count % 8
        while index < whole:
            for lane in range(8):
                sums[lane] += values[start + index + lane]
            index += 8
        total = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + (
            (sums[4] + sums[5]) + (sums[6] + sums[7])
        )
        for rest in range(index, count):
            total += values[start + rest]
        return total
    half = count // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, count - half)


def _sum(values: Sequence[float]) -> float:
    return _pairwise_sum(values, 0, len(values))


def mean(values: Sequence[float]) -> float:
    """``np.mean``: the pairwise sum divided by the count."""
    return _sum(values) / len(values)


def std(values: Sequence[float]) -> float:
    """``np.std`` (population, ``ddof=0``)."""
    centre = mean(values)
    squares = [(value - centre) * (value - centre) for value in values]
    return math.sqrt(_sum(squares) / len(values))


def percentile(values: Sequence[float], amount: float) -> float:
    """``np.percentile(values, amount)`` with numpy's default ``linear`` method."""
    ordered = sorted(values)
    last = len(ordered) - 1
    virtual = last * (amount / 100)
    if virtual >= last:
        return ordered[last]
    if virtual < 0:
        return ordered[0]
    below = math.floor(virtual)
    gamma = virtual - below
    low, high = ordered[below], ordered[below + 1]
    difference = high - low
    # numpy's _lerp interpolates from the nearer end, which is exact at both ends.
    if gamma >= 0.5:
        return high - difference * (1 - gamma)
    return low + difference * gamma


def gradient(values: Sequence[float]) -> list[float]:
    """``np.gradient(values, range(len(values)))``: central inside, one-sided at the edges."""
    count = len(values)
    inner = [(values[i + 1] - values[i - 1]) / 2.0 for i in range(1, count - 1)]
    return [values[1] - values[0], *inner, values[-1] - values[-2]]


def breakpoints(
    distances: Sequence[float], kind: ThresholdType, amount: float
) -> tuple[float, list[float]]:
    """The threshold and the array compared with it, as LangChain computes them.

    Needs at least one distance (two for ``gradient``), as numpy does.
    """
    if kind == "percentile":
        return percentile(distances, amount), list(distances)
    if kind == "standard_deviation":
        return mean(distances) + amount * std(distances), list(distances)
    if kind == "interquartile":
        spread = percentile(distances, 75) - percentile(distances, 25)
        return mean(distances) + amount * spread, list(distances)
    slopes = gradient(distances)
    return percentile(slopes, amount), slopes


def cosine_distances(vectors: Sequence[Sequence[float]]) -> list[float]:
    """``1 - cos`` between each vector and the next; a zero vector has similarity 0.

    LangChain replaces the NaN/inf similarity of a zero vector by 0; so does this.
    """
    norms = [math.sqrt(math.fsum(x * x for x in vector)) for vector in vectors]
    distances: list[float] = []
    for index in range(len(vectors) - 1):
        here, there = vectors[index], vectors[index + 1]
        scale = norms[index] * norms[index + 1]
        dot = math.fsum(x * y for x, y in zip(here, there, strict=True))
        similarity = dot / scale if scale else 0.0
        distances.append(1 - similarity)
    return distances


def strongest(distances: Sequence[float], count: int) -> list[int]:
    """Indices of the ``count`` largest distances, in source order; earlier wins a tie."""
    ranked = sorted(range(len(distances)), key=lambda index: (-distances[index], index))
    return sorted(ranked[: max(count, 0)])
