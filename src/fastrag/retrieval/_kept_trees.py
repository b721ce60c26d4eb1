"""``KeptTrees``: a normalizer registry that keeps the trees it builds for the sections.

``fastrag ingest --store`` stores each indexed document's exact sections, which come from
its normalized tree. The structure-aware chunker builds that tree anyway (to pack, or to
validate a replayed result); normalizing the parent a second time would cost as much
again. So a run that indexes hands the chunker this registry — the same adapters, the
same identities (chunk ids and the ingestion version do not change) — and it remembers
the last few trees it built, keyed by the parent's source and id, until the run takes
them (``sections``). Only a tree that is no longer held (never expected: the run takes
each one right after the chunker finishes with it) is normalized again.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from fastrag.models import Document
from fastrag.normalization import NormalizedDocument, NormalizerRegistry
from fastrag.retrieval._sections import DocumentSections, document_sections

__all__ = ["KeptTrees"]

_KEPT: Final = 8
"""Trees held at once. A run takes each document's tree when its chunks are complete,
while the chunker is at most one document further; 8 leaves room, and bounds memory
(a tree is several times its document) if a caller never takes them."""


class KeptTrees(NormalizerRegistry):
    """The built-in normalizers, remembering the trees they return (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self._trees: OrderedDict[tuple[str, str], NormalizedDocument] = OrderedDict()
        self.renormalized = 0
        """Trees that had to be built again because they were no longer held."""

    def normalize(self, document: Document) -> NormalizedDocument:
        """Normalize as the registry does, and keep the tree."""
        tree = super().normalize(document)
        key = (document.source_id, document.id)
        self._trees[key] = tree
        self._trees.move_to_end(key)
        while len(self._trees) > _KEPT:
            self._trees.popitem(last=False)
        return tree

    def take(self, parent: Document) -> NormalizedDocument:
        """``parent``'s tree, which is released (normalized again if no longer held)."""
        tree = self._trees.pop((parent.source_id, parent.id), None)
        if tree is None:
            self.renormalized += 1
            tree = super().normalize(parent)
        return tree

    def sections(self, parent: Document) -> DocumentSections:
        """The sections of ``parent``'s tree, which is released."""
        return document_sections(self.take(parent))
