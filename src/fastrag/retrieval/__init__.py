"""Retrieval helpers: expand structural hits back to their source sections.

``SectionIndex`` holds normalized parents in memory (no persistence, no eviction) and
resolves a retrieved structural chunk to the sections it was cut from.
``fastrag.retrieval.section_store.SectionStore`` gives the same answers from an SQLite
file that ``fastrag ingest --store`` writes, in any later process.
"""

from fastrag.retrieval.section_index import ResolvedSection, SectionIndex

__all__ = ["ResolvedSection", "SectionIndex"]
