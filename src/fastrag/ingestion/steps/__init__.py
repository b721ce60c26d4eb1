"""The ingestion step families: parsing, chunking, embedding, storing.

Each family lives in its own subpackage; this package imports none of them eagerly.
"""

__all__: list[str] = []
