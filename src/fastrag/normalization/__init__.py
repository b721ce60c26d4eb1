"""Normalization: one source-faithful tree plus a coverage partition per parsed document.

Adapters are pure functions of a string: they never read files, fetch URLs or execute
markup. Select one by the document's explicit ``metadata["content_format"]``.
"""

from fastrag.normalization.model import (
    CoverageUnit,
    Exclusion,
    ExclusionColumns,
    Exclusions,
    Lineage,
    MapSegment,
    NodeIds,
    Nodes,
    NormalizedDocument,
    NormalizedNode,
    SourceSpan,
    UnitColumns,
    Units,
)
from fastrag.normalization.registry import (
    BUILTIN_FORMATS,
    Normalizer,
    NormalizerRegistry,
    UnsupportedFormatError,
)

__all__ = [
    "BUILTIN_FORMATS",
    "CoverageUnit",
    "Exclusion",
    "ExclusionColumns",
    "Exclusions",
    "Lineage",
    "MapSegment",
    "NodeIds",
    "Nodes",
    "NormalizedDocument",
    "NormalizedNode",
    "Normalizer",
    "NormalizerRegistry",
    "SourceSpan",
    "UnitColumns",
    "Units",
    "UnsupportedFormatError",
]
