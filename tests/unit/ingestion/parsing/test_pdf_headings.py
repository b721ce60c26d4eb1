"""Headings detected from fonts alone, scored against the PDFs' own outlines.

The outline is hidden from the detector (``analyze(..., use_outline=False)``); an outline
entry counts as found when a detected heading carries its title (section numbers
aside) on the entry's page or the next. Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import pytest

from tests.unit.ingestion.parsing._pdf_helpers import PDF, heading_scores

pytestmark = pytest.mark.skipif(not PDF.is_dir(), reason="shared corpus not present")


@pytest.mark.parametrize(
    ("name", "entries", "min_recall", "min_precision"),
    [
        # Texinfo manual: 141 bookmarks down to subsubsections.
        ("bashref.pdf", 141, 0.9, 0.8),
        # Two-column ACM paper: 29 bookmarks; the title, CCS CONCEPTS and KEYWORDS are
        # headings on the page but not in the outline.
        ("acmart-sample-sigconf.pdf", 29, 0.9, 0.8),
        # German lecture notes: the outline stops at sections and leaves out the front
        # matter, exercises ("Aufgabe 3") and the appendix's subsections, all set as
        # headings — precision against this outline cannot be high, recall must be.
        ("GeoTopo-komprimiert.pdf", 35, 0.9, 0.4),
    ],
)
def test_layout_headings_against_the_outline(
    name: str, entries: int, min_recall: float, min_precision: float
) -> None:
    recall, precision, outline, detected = heading_scores(name)
    print(
        f"{name}: recall {recall:.3f}, precision {precision:.3f} "
        f"({detected} detected, {outline} in the outline)"
    )
    assert outline == entries
    assert recall >= min_recall
    assert precision >= min_precision
