"""``IngestConfig`` validation, the exit-status rule, and how files are dealt to workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion._job_workers import batches
from fastrag.ingestion.job import IngestConfig, IngestResult, run_ingest
from fastrag.ingestion.manifest import ManifestEntry
from fastrag.models import Document


def _config(tmp_path: Path, **changes: Any) -> IngestConfig:
    (tmp_path / "in").mkdir(exist_ok=True)
    return IngestConfig(tmp_path / "in", tmp_path / "out" / "chunks.jsonl", **changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"chunker": "semantic"}, "'chunker' must be one of"),
        ({"max_tokens": 0}, "'max_tokens' must be an int >= 1"),
        ({"workers": 0}, "'workers' must be an int >= 1"),
        ({"overlap_tokens": 600}, "'overlap_tokens' (600) must be below 'max_tokens' (600)"),
        ({"include": "*.md"}, "'include' must be a list of strings"),
        ({"metadata": (("source", "x"),)}, "reserved key 'source'"),
        ({"format_overrides": (("*.txt",),)}, "(glob, format) pair"),
        ({"min_preferred_tokens": -1}, "'min_preferred_tokens' must be an int >= 0"),
        ({"min_preferred_tokens": 601}, "'min_preferred_tokens' (601) must not exceed"),
    ],
)
def test_bad_configuration_names_the_field(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        _config(tmp_path, **changes)
    assert message in str(raised.value)


def test_an_output_inside_the_input_must_be_excluded(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    with pytest.raises(ConfigurationError, match=r"--exclude 'out/chunks\.jsonl'"):
        IngestConfig(tmp_path / "in", tmp_path / "in" / "out" / "chunks.jsonl")
    IngestConfig(tmp_path / "in", tmp_path / "in" / "out" / "chunks.jsonl", exclude=("out/",))


def test_defaults_are_derived_and_metadata_is_sorted(tmp_path: Path) -> None:
    config = _config(tmp_path, max_tokens=300, metadata={"tenant": "acme", "acl": ["a"]})
    assert config.effective_target_tokens == 200
    assert config.metadata == (("acl", ("a",)), ("tenant", "acme"))
    assert config.manifest_path == tmp_path / "out" / "chunks.jsonl.manifest.sqlite"


def test_min_preferred_tokens_reaches_the_chunker(tmp_path: Path) -> None:
    from fastrag.ingestion._job_config import _chunker
    from fastrag.tokenization import Utf8ByteTokenizer

    def packed(**changes: Any) -> int:
        chunker, _ = _chunker(_config(tmp_path, **changes), Utf8ByteTokenizer())
        return int(chunker.packing.min_preferred_tokens)  # type: ignore[attr-defined]

    assert packed(max_tokens=200, target_tokens=128) == 100
    assert packed(max_tokens=120, target_tokens=80) == 80
    assert packed(max_tokens=200, target_tokens=128, min_preferred_tokens=64) == 64


def test_merge_top_level_reaches_the_chunker_and_merges_small_top_level_sections(
    tmp_path: Path,
) -> None:
    from fastrag.ingestion._job_config import _chunker
    from fastrag.tokenization import Utf8ByteTokenizer

    text = "# Install\n\npip install x\n\n# Usage\n\nRun x.\n\n# License\n\nMIT\n"
    readme = Document("r", "r", text, {"content_format": "markdown"})

    def chunks(**changes: Any) -> int:
        chunker, _ = _chunker(_config(tmp_path, max_tokens=600, **changes), Utf8ByteTokenizer())
        return sum(1 for piece in chunker.split(readme) if not isinstance(piece, str))

    assert chunks() == 3
    assert chunks(merge_top_level=True) == 1


def _result(tmp_path: Path, *states: str) -> IngestResult:
    entries = tuple(
        ManifestEntry(f"f{i}.md", None, None, "markdown", state, reason="why", chunk_count=0)
        for i, state in enumerate(states)
    )
    empty = run_ingest(_config(tmp_path))
    return IngestResult(_config(tmp_path), entries, 0, empty.report, "v", 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("states", "fail_on", "incomplete"),
    [
        (("empty", "skipped"), "any", False),
        (("failed",), "any", True),
        (("quarantined",), "any", True),
        (("quarantined",), "failed", False),
        (("failed",), "quarantined", False),
        (("failed", "quarantined"), "never", False),
    ],
)
def test_fail_on_decides_which_states_make_a_run_incomplete(
    tmp_path: Path, states: tuple[str, ...], fail_on: Any, incomplete: bool
) -> None:
    assert _result(tmp_path, *states).incomplete(fail_on) is incomplete


def test_an_empty_folder_gives_an_empty_output_and_manifest(tmp_path: Path) -> None:
    result = run_ingest(_config(tmp_path))
    assert result.records == 0 and result.entries == ()
    assert result.output.read_bytes() == b""
    assert result.manifest.exists()


def test_batches_deal_every_file_once_in_order() -> None:
    raws = [Document(f"{i:03}.md", f"{i:03}.md", "") for i in range(70)]
    for workers, size in ((2, None), (3, None), (2, 5), (4, 100)):
        dealt = batches(raws, workers, size)
        assert [doc for batch in dealt for doc in batch] == raws
        assert all(batch for batch in dealt)
    assert [len(batch) for batch in batches(raws, 2, None)] == [9] * 7 + [7]


def test_an_unpicklable_tokenizer_is_refused_for_workers(tmp_path: Path) -> None:
    from fastrag.tokenization import Utf8ByteTokenizer

    class Local(Utf8ByteTokenizer):  # a local class cannot be pickled
        pass

    with pytest.raises(ConfigurationError, match="cannot be sent to worker processes"):
        _config(tmp_path, tokenizer=Local(), workers=2)
    _config(tmp_path, tokenizer=Local(), workers=1)
    _config(tmp_path, tokenizer=Utf8ByteTokenizer(), workers=2)


def test_an_empty_document_says_why_when_the_normalizer_knows(tmp_path: Path) -> None:
    config = _config(tmp_path)
    (tmp_path / "in" / "moved.html").write_text(
        '<html><head><meta http-equiv="refresh" content="0; URL=new.html"></head>'
        '<body><p>Redirecting to <a href="new.html">new.html</a>.</p></body></html>',
        encoding="utf-8",
    )
    (tmp_path / "in" / "blank.md").write_text("<!-- nothing shown -->\n", encoding="utf-8")
    result = run_ingest(config)
    reasons = {entry.path: (entry.state, entry.reason) for entry in result.entries}
    assert reasons["moved.html"] == (
        "empty",
        "moved.html: the parsed text has nothing to chunk (normalization: an immediate "
        "redirect (meta refresh): the page shows nothing of its own)",
    )
    assert reasons["blank.md"] == ("empty", "blank.md: the parsed text has nothing to chunk")
