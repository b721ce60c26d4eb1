"""Retrieval helpers: expand structural hits back to their source sections.

``SectionIndex`` holds normalized parents in memory (no persistence, no eviction) and
resolves a retrieved structural chunk to the sections it was cut from.
"""

from fastrag.retrieval.section_index import ResolvedSection, SectionIndex

__all__ = ["ResolvedSection", "SectionIndex"]
