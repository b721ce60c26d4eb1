"""Real records for the store tests: the bundled example documents, chunked for real.

Vectors are derived from each chunk id (sha256 → floats), so they are deterministic
across runs and distinct per chunk without an embedding model.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import Any

from fastrag.tokenization import Utf8ByteTokenizer
from tests.unit.ingestion._ingest_helpers import EXAMPLES, ingest

DIMENSION = 16


def vector_for(key: str, dimension: int = DIMENSION) -> tuple[float, ...]:
    """A deterministic vector in [-1, 1) per coordinate, seeded by ``key``."""
    raw = b"".join(
        hashlib.sha256(f"{key}/{block}".encode()).digest() for block in range(dimension // 8 + 1)
    )
    values = struct.unpack(f">{dimension}I", raw[: 4 * dimension])
    return tuple(value / 2**31 - 1.0 for value in values)


def example_records(tmp: Path) -> list[dict[str, Any]]:
    """Every record of the example documents (tenant ``acme``, ACL ``["staff"]``)."""
    return ingest(EXAMPLES, tmp / "examples.jsonl", tokenizer=Utf8ByteTokenizer(), max_tokens=2000)
