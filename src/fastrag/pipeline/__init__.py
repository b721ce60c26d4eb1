"""Pipeline-step machinery: lazy step graphs, per-item cache, policies and events.

Layer 2: knows nothing of chunking, parsing or embedding; those families subclass
``DocumentStep`` (and mix in ``RoutedStep``) in ``fastrag.ingestion``.
"""

from fastrag.pipeline.cache import (
    SCHEMA_VERSION,
    CacheStore,
    DocumentHeader,
    InMemoryCacheStore,
    SqliteCacheStore,
)
from fastrag.pipeline.context import (
    EventListener,
    ExecutionContext,
    current_context,
    use_context,
)
from fastrag.pipeline.document_step import CachePlan, DocumentStep, cache_key
from fastrag.pipeline.events import (
    CacheHit,
    DocumentChunked,
    DocumentEmbedded,
    DocumentParsed,
    Event,
    EventRecorder,
    ItemCompleted,
    ItemFailed,
    ItemProduced,
    ItemRetried,
    ItemStarted,
)
from fastrag.pipeline.filters import Filter
from fastrag.pipeline.hashing import canonical_json, sha256_parts, stable_hash
from fastrag.pipeline.pipeline import Pipeline
from fastrag.pipeline.policy import OnFailure, Policy
from fastrag.pipeline.routed import NoRouteError, RoutedStep, RouteResolution
from fastrag.pipeline.source import IterableSource
from fastrag.pipeline.step import CacheSetting, PipelineStep, SkipItem, item_label

__all__ = [
    "SCHEMA_VERSION",
    "CacheHit",
    "CachePlan",
    "CacheSetting",
    "CacheStore",
    "DocumentChunked",
    "DocumentEmbedded",
    "DocumentHeader",
    "DocumentParsed",
    "DocumentStep",
    "Event",
    "EventListener",
    "EventRecorder",
    "ExecutionContext",
    "Filter",
    "InMemoryCacheStore",
    "ItemCompleted",
    "ItemFailed",
    "ItemProduced",
    "ItemRetried",
    "ItemStarted",
    "IterableSource",
    "NoRouteError",
    "OnFailure",
    "Pipeline",
    "PipelineStep",
    "Policy",
    "RouteResolution",
    "RoutedStep",
    "SkipItem",
    "SqliteCacheStore",
    "cache_key",
    "canonical_json",
    "current_context",
    "item_label",
    "sha256_parts",
    "stable_hash",
    "use_context",
]
