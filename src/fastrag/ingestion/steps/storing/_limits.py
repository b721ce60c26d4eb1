"""The Milvus server's limits, enforced before a row is sent.

Milvus Lite accepts values a server rejects, so an index built locally and later moved to
a server would fail there; checking here makes both behave like the server.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_ARRAY_CAPACITY", "MAX_DIMENSION", "MAX_JSON_BYTES", "MAX_VARCHAR_BYTES"]

MAX_VARCHAR_BYTES: Final = 65_535
"""A VARCHAR's ``max_length`` ceiling, counted in UTF-8 bytes."""

MAX_JSON_BYTES: Final = 65_536
"""A JSON field's serialized size ceiling, in bytes."""

MAX_ARRAY_CAPACITY: Final = 4_096
"""An ARRAY field's ``max_capacity`` ceiling, in elements."""

MAX_DIMENSION: Final = 32_768
"""A FLOAT_VECTOR's dimension ceiling."""
