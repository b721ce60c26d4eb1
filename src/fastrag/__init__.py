"""fastrag: structure-aware document ingestion and chunking for retrieval.

Importing this package is cheap: heavy optional libraries (torch, docling, pymilvus,
dask) are imported only by the features that need them.
"""

from fastrag._pure import prefer_sources

prefer_sources()  # before any compiled module is imported (FASTRAG_PURE_PYTHON=1)

from fastrag.exceptions import (  # noqa: E402  # after the import switch above
    ChunkingError,
    ConfigurationError,
    FastragError,
    ParsingError,
)
from fastrag.models import ContentFormat, Document  # noqa: E402

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
