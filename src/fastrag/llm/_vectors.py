"""Checks on vectors coming back from a model: count, length and finite floats.

A remote endpoint is as untrusted as a document: a response with one vector too few
would shift every following vector onto the wrong chunk, and a NaN poisons a whole index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fastrag.llm.errors import EmbeddingError
from fastrag.llm.protocol import Vector

__all__ = ["check_vectors", "to_vector"]


def to_vector(values: object, *, source: str, position: int) -> Vector:
    """A tuple of finite floats from a list of JSON numbers (bools are not numbers)."""
    if not isinstance(values, list | tuple) or not values:
        raise EmbeddingError(
            f"{source} returned embedding #{position} as {type(values).__name__}, not a "
            f"nonempty list of numbers; check that the endpoint speaks the OpenAI "
            f"embeddings API with encoding_format='float'"
        )
    vector: list[float] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EmbeddingError(
                f"{source} returned a {type(value).__name__} inside embedding #{position}; "
                f"expected only numbers"
            )
        number = float(value)
        if not math.isfinite(number):
            raise EmbeddingError(
                f"{source} returned a non-finite value ({number}) in embedding #{position}; "
                f"the model or endpoint is faulty"
            )
        vector.append(number)
    return tuple(vector)


def check_vectors(
    vectors: Sequence[Vector], *, expected: int, dimension: int | None, source: str
) -> int:
    """Check count and equal lengths (``dimension`` when known); return the length."""
    if len(vectors) != expected:
        raise EmbeddingError(
            f"{source} returned {len(vectors)} embeddings for {expected} texts; refusing "
            f"to pair vectors with the wrong chunks"
        )
    lengths = {len(vector) for vector in vectors}
    if dimension is not None:
        lengths.add(dimension)
    if len(lengths) > 1:
        raise EmbeddingError(
            f"{source} returned embeddings of lengths {sorted(lengths)}"
            + (f" (expected {dimension})" if dimension is not None else "")
            + "; every vector of one model must have the same dimension"
        )
    return lengths.pop() if lengths else 0
