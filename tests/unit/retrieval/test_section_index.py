"""SectionIndex resolves structural hits to their source sections, in source order."""

from __future__ import annotations

from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError, ValidationError
from fastrag.models import Document
from fastrag.normalization import (
    CoverageUnit,
    Exclusion,
    NormalizedDocument,
    NormalizedNode,
    NormalizerRegistry,
    SourceSpan,
)
from fastrag.packing import PackingConfig, pack
from fastrag.packing.contract import path_title
from fastrag.retrieval import ResolvedSection, SectionIndex
from fastrag.tokenization import Utf8ByteTokenizer
from tests._paths import CORPUS
from tests._seed_examples import keep_provenance_and_parents
from tests.unit.packing._hand_chunks import (
    ORCHARD,
    heading_tree,
    node_ids,
    orchard_pieces,
    piece,
    unit_span,
)

NESTED = (
    "Intro line.\n# Guide\nAbout.\n## Water\nWeekly.\n### Rain\nSkip rainy days.\n## Soil\nTest.\n"
)


def hit_of(content: str, metadata: dict[str, Any], name: str = "hit") -> Document:
    return Document(name, "hand", content, metadata)


@pytest.fixture
def nested() -> NormalizedDocument:
    return heading_tree(NESTED, document_id="guide")


def test_resolves_a_merged_hit_to_each_section_with_ancestors_once() -> None:
    orchard = heading_tree(ORCHARD)
    index = SectionIndex([orchard])
    first, second = (hit_of(*p) for p in orchard_pieces(orchard))
    sections = index.resolve(first)
    assert [s.heading_path for s in sections] == [("Orchard",), ("Orchard", "Water")]
    assert sections[0].content == ORCHARD.rstrip("\n")
    assert sections[1].content == "## Water\nWater pears weekly."
    assert (sections[1].char_start, sections[1].char_end) == (10, 38)
    assert ORCHARD[sections[1].char_start : sections[1].char_end] == sections[1].content
    assert all(s.document_id == "doc" and s.kind == "section" for s in sections)
    # The second hit names only "Soil"; its ancestor "Orchard" is added once.
    assert [s.heading_path for s in index.resolve(second)] == [("Orchard",), ("Orchard", "Soil")]
    assert [s.heading_path for s in index.resolve(second, ancestors=False)] == [("Orchard", "Soil")]


def test_sections_come_back_in_source_order_whatever_the_hit_lists(
    nested: NormalizedDocument,
) -> None:
    guide, water, rain, soil = node_ids(nested, "section")
    metadata = {"document_id": "guide", "section_ids": [soil, rain]}
    sections = SectionIndex([nested]).resolve(hit_of("x", metadata))
    assert [s.section_id for s in sections] == [guide, water, rain, soil]
    assert [s.level for s in sections] == [1, 2, 3, 2]
    rain_section = sections[2]
    assert rain_section.heading_path == ("Guide", "Water", "Rain")
    assert rain_section.content == "### Rain\nSkip rainy days."
    assert [s.section_id for s in SectionIndex([nested]).resolve(hit_of("x", metadata), False)] == [
        rain,
        soil,
    ]


def test_content_before_the_first_heading_resolves_to_the_preamble(
    nested: NormalizedDocument,
) -> None:
    (intro, *_) = node_ids(nested, "paragraph")
    content, metadata = piece(nested, [unit_span(nested, intro)], section_ids=[], heading_ids=[])
    (preamble,) = SectionIndex([nested]).resolve(hit_of(content, metadata))
    assert preamble == ResolvedSection(
        document_id="guide",
        section_id="guide:root",
        heading_ids=(),
        heading_path=(),
        level=None,
        content="Intro line.",
        char_start=0,
        char_end=11,
        kind="preamble",
    )
    # A merged hit that starts in the preamble gets the preamble and the section.
    guide = node_ids(nested, "section")[0]
    merged = {**metadata, "section_ids": (guide,)}
    kinds = [s.kind for s in SectionIndex([nested]).resolve(hit_of(content, merged))]
    assert kinds == ["preamble", "section"]


def test_a_document_without_headings_resolves_to_its_whole_text() -> None:
    text = "First paragraph.\n\nSecond paragraph.\n"
    normalized = heading_tree(text, document_id="plain", format_name="text")
    (preamble,) = SectionIndex([normalized]).resolve(
        hit_of("First paragraph.", {"document_id": "plain", "section_ids": ()})
    )
    assert preamble.content == text.rstrip("\n")


def test_a_hit_in_a_document_without_preamble_and_no_sections_resolves_to_nothing() -> None:
    orchard = heading_tree(ORCHARD)
    hit = hit_of("x", {"document_id": "doc", "section_ids": ()})
    assert SectionIndex([orchard]).resolve(hit) == ()


def test_missing_parents_and_sections_raise_key_error_unless_skipped() -> None:
    orchard = heading_tree(ORCHARD)
    index = SectionIndex([orchard])
    foreign = hit_of("x", {"document_id": "elsewhere", "section_ids": ["s"]})
    with pytest.raises(KeyError, match=r"document 'elsewhere' of hit 'hit' is not in this"):
        index.resolve(foreign)
    assert index.resolve(foreign, missing="skip") == ()
    soil = node_ids(orchard, "section")[2]
    stale = hit_of("x", {"document_id": "doc", "section_ids": ["doc:section:99", soil]})
    with pytest.raises(KeyError, match=r"section 'doc:section:99' of hit 'hit' is not a section"):
        index.resolve(stale)
    assert [s.heading_path[-1] for s in index.resolve(stale, missing="skip")] == [
        "Orchard",
        "Soil",
    ]
    heading = hit_of("x", {"document_id": "doc", "section_ids": [node_ids(orchard, "heading")[0]]})
    with pytest.raises(KeyError, match="is not a section of document 'doc'"):
        index.resolve(heading)


def test_hits_without_structural_metadata_are_rejected() -> None:
    index = SectionIndex([heading_tree(ORCHARD)])
    with pytest.raises(ValidationError, match=r"hit 'hit' has no valid metadata\['document_id'\]"):
        index.resolve(hit_of("x", {}))
    with pytest.raises(ValidationError, match=r"metadata\['section_ids'\]"):
        index.resolve(hit_of("x", {"document_id": "doc", "section_ids": "doc:section:0"}))
    with pytest.raises(ConfigurationError, match="missing must be 'raise' or 'skip'"):
        index.resolve(hit_of("x", {"document_id": "doc", "section_ids": []}), missing="drop")  # type: ignore[arg-type]


def test_the_index_holds_distinct_parents_only() -> None:
    one = heading_tree(ORCHARD)
    index = SectionIndex([one, heading_tree(ORCHARD)])
    assert len(index) == 1 and "doc" in index
    with pytest.raises(ConfigurationError, match="two different parents share document id 'doc'"):
        SectionIndex([one, heading_tree("# Other\n")])
    with pytest.raises(ConfigurationError, match="takes NormalizedDocument values"):
        SectionIndex([Document("doc", "hand", ORCHARD)])  # type: ignore[list-item]


def test_html_sections_resolve_to_their_readable_text() -> None:
    source = "<h1>Tea</h1><p>Milk &amp; sugar</p>"
    heading_span, paragraph_span = SourceSpan(4, 7), SourceSpan(15, 31)
    nodes = (
        NormalizedNode("r", "document", "", (SourceSpan(0, 35),), None, ("s",)),
        NormalizedNode("s", "section", "Tea", (SourceSpan(0, 35),), "r", ("h", "p"), 1),
        NormalizedNode("h", "heading", "Tea", (heading_span,), "s", (), 1),
        NormalizedNode("p", "paragraph", "Milk & sugar", (paragraph_span,), "s"),
    )
    units = (CoverageUnit("uh", "h", heading_span), CoverageUnit("up", "p", paragraph_span))
    exclusions = tuple(
        Exclusion(SourceSpan(a, b), "markup") for a, b in [(0, 4), (7, 15), (31, 35)]
    )
    parent = Document("page", "hand", source, {"content_format": "html"})
    normalized = NormalizedDocument(parent, "html", nodes, units, exclusions).validate()
    (section,) = SectionIndex([normalized]).resolve(
        hit_of("Milk & sugar", {"document_id": "page", "section_ids": ["s"]})
    )
    assert section.content == "Tea\n\nMilk & sugar"
    assert (section.char_start, section.char_end) == (0, 35)


@pytest.mark.parametrize(
    ("file_name", "format_name"), [("wiki.md", "markdown"), ("wiki_duck.html", "html")]
)
def test_every_engine_chunk_of_a_real_document_resolves_to_sections_holding_it(
    file_name: str, format_name: str
) -> None:
    text = (CORPUS / "web" / file_name).read_bytes().decode("utf-8")
    parent = Document(file_name, "corpus", text, {"content_format": format_name})
    normalized = NormalizerRegistry().get(format_name).normalize(parent)
    config = PackingConfig(target_tokens=300, max_tokens=400, min_preferred_tokens=50)
    pieces = pack(normalized, Utf8ByteTokenizer(), config)
    index = SectionIndex([normalized])
    for number, (content, metadata) in enumerate(pieces):
        sections = index.resolve(Document(f"hit-{number}", file_name, content, metadata))
        assert sections, f"chunk {number} resolved to nothing"
        ids = [s.section_id for s in sections]
        assert len(ids) == len(set(ids))
        assert [s.char_start for s in sections] == sorted(s.char_start for s in sections)
        for start, end in metadata["retained_intervals"]:
            assert any(s.char_start <= start and end <= s.char_end for s in sections), (
                f"chunk {number}: retained [{start}, {end}) lies in no resolved section"
            )
        # Without ancestors, exactly the chunk's own sections (plus a preamble) remain.
        own = [s.section_id for s in index.resolve(Document("h", "c", content, metadata), False)]
        assert [i for i in own if i != normalized.root.node_id] == list(metadata["section_ids"])


def test_sections_carry_the_heading_path_their_chunks_carry_long_titles_cut_alike() -> None:
    title = "A paragraph that an unspaced rule made a heading. " * 40
    text = f"# Notes\n\n{title}\n---\n\nThe body under it.\n"
    parent = Document("notes", "hand", text, {"content_format": "markdown"})
    normalized = NormalizerRegistry().get("markdown").normalize(parent)
    pieces = pack(normalized, Utf8ByteTokenizer(), PackingConfig(max_tokens=600))
    content, metadata = pieces[-1]
    (section,) = SectionIndex([normalized]).resolve(
        Document("hit", "notes", content, metadata), ancestors=False
    )
    assert section.heading_path == metadata["heading_path"]
    assert section.heading_path[1] == path_title(title.strip()) != title.strip()


def test_seed_000_section_index_recipe_runs_verbatim() -> None:
    # Seed 000, "Keep provenance and parents": the standalone recipe, unchanged.
    sections = keep_provenance_and_parents()
    # Beyond the recipe: the whole guide and its "Water" section, in source order.
    assert [s.heading_path for s in sections] == [("Orchard",), ("Orchard", "Water")]
    assert sections[1].content == "## Water\nWater pears weekly."
