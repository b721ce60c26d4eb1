"""Ingestion: sources, filters and the parse/chunk/embed/store step families (layer 3).

Import the parts from their own modules (``fastrag.ingestion.filters``,
``fastrag.ingestion.steps.chunking``, ...); this package imports nothing eagerly so that
``import fastrag.ingestion`` stays cheap.
"""

__all__: list[str] = []
