"""Normalized trees of real documents, compared byte for byte with reviewed dumps."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.models import Document
from fastrag.normalization import NormalizerRegistry
from fastrag.normalization.dump import dump_tree
from tests.golden.conftest import (
    FORMATS,
    REGENERATE,
    compare_or_regenerate,
    golden_sources,
    read_source,
)

CASES = [(fmt, path) for fmt in FORMATS for path in golden_sources(fmt)]


def test_regeneration_switch_is_off() -> None:
    assert not REGENERATE, "FASTRAG_REGENERATE_GOLDEN=1 rewrites golden files; unset it"


@pytest.mark.parametrize(
    ("format_name", "source_path"), CASES, ids=[f"{f}/{p.stem}" for f, p in CASES]
)
def test_tree_matches_golden(format_name: str, source_path: Path) -> None:
    content = read_source(source_path)
    document = Document(
        source_path.stem, f"golden/{format_name}", content, {"content_format": format_name}
    )
    normalized = NormalizerRegistry().normalize(document)
    normalized.validate()
    compare_or_regenerate(source_path.with_suffix(".tree.txt"), dump_tree(normalized))
