"""fastrag: structure-aware document ingestion and chunking for retrieval.

Importing this package is cheap: heavy optional libraries (torch, docling, pymilvus,
dask) are imported only by the features that need them.
"""

from fastrag.exceptions import (
    ChunkingError,
    ConfigurationError,
    FastragError,
    ParsingError,
)
from fastrag.models import ContentFormat, Document

__all__ = [
    "ChunkingError",
    "ConfigurationError",
    "ContentFormat",
    "Document",
    "FastragError",
    "ParsingError",
    "__version__",
]

__version__ = "0.1.0"
