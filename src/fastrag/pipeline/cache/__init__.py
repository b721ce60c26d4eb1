"""Per-item step caches: the ``CacheStore`` interface, an in-memory and an SQLite store."""

from fastrag.pipeline.cache.base import CacheStore, DocumentHeader
from fastrag.pipeline.cache.memory import InMemoryCacheStore
from fastrag.pipeline.cache.sqlite import SCHEMA_VERSION, SqliteCacheStore

__all__ = [
    "SCHEMA_VERSION",
    "CacheStore",
    "DocumentHeader",
    "InMemoryCacheStore",
    "SqliteCacheStore",
]
