"""Labelled-corpus loaders: quotes located at their first occurrence, hazards recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastrag.benchmarking.chroma import load_chroma
from fastrag.benchmarking.corpus import load_labelled_corpus, locate_quote
from fastrag.exceptions import ConfigurationError
from tests._paths import SHARED

CHROMA = SHARED / "eval" / "chroma-chunking"


def test_locate_quote_takes_the_first_of_overlapping_occurrences() -> None:
    assert locate_quote("abc xyz abc", "abc") == (0, 3, 2)
    assert locate_quote("aaa", "aa") == (0, 2, 2)
    with pytest.raises(ConfigurationError, match="does not occur"):
        locate_quote("abc", "abd")


def _corpus(tmp_path: Path, questions: list[object], suffix: str = ".json") -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Intro.\n\nThe cat sat. The cat sat.\n", encoding="utf-8")
    path = tmp_path / f"questions{suffix}"
    if suffix == ".jsonl":
        path.write_text("\n".join(json.dumps(item) for item in questions), encoding="utf-8")
    else:
        path.write_text(json.dumps({"questions": questions}), encoding="utf-8")
    return path


def test_quote_and_offset_references_load_and_ambiguity_is_recorded(tmp_path: Path) -> None:
    questions = _corpus(
        tmp_path,
        [
            {"question": "Where?", "references": [{"document": "a.md", "quote": "The cat sat."}]},
            {
                "id": "q2",
                "question": "Intro?",
                "references": [{"document": "a.md", "start": 0, "end": 6, "section": ["A"]}],
            },
        ],
        ".jsonl",
    )
    corpus = load_labelled_corpus(tmp_path / "docs", questions)
    first, second = corpus.questions
    assert first.references[0].span == (8, 20)
    assert first.references[0].ambiguous and first.references[0].occurrences == 2
    assert second.id == "q2" and second.references[0].section == ("A",)
    assert not second.references[0].ambiguous
    assert corpus.ambiguous_references == 1


def test_jsonl_questions_may_hold_unicode_line_separators(tmp_path: Path) -> None:
    # json.dumps(ensure_ascii=False) leaves U+2028 and U+0085 unescaped: they are not
    # line ends of a JSONL file.
    questions = tmp_path / "questions.jsonl"
    _corpus(tmp_path, [], ".jsonl")
    reference = {"document": "a.md", "start": 0, "end": 6}
    item = {"question": "Where\u2028is\x85it?", "references": [reference]}
    questions.write_text(json.dumps(item, ensure_ascii=False) + "\n", encoding="utf-8")
    corpus = load_labelled_corpus(tmp_path / "docs", questions)
    assert [q.text for q in corpus.questions] == ["Where\u2028is\x85it?"]


def test_offsets_that_disagree_with_the_quote_are_refused(tmp_path: Path) -> None:
    questions = _corpus(
        tmp_path,
        [
            {
                "question": "?",
                "references": [{"document": "a.md", "start": 0, "end": 5, "quote": "Intr0"}],
            }
        ],
    )
    with pytest.raises(ConfigurationError, match="differs from the given quote"):
        load_labelled_corpus(tmp_path / "docs", questions)


def test_unknown_document_and_bad_ranges_are_refused(tmp_path: Path) -> None:
    questions = _corpus(
        tmp_path, [{"question": "?", "references": [{"document": "b.md", "quote": "x"}]}]
    )
    with pytest.raises(ConfigurationError, match="names no document"):
        load_labelled_corpus(tmp_path / "docs", questions)
    questions.write_text(
        json.dumps(
            [{"question": "?", "references": [{"document": "a.md", "start": 5, "end": 500}]}]
        ),
        encoding="utf-8",
    )
    with pytest.raises(ConfigurationError, match="not a non-empty range"):
        load_labelled_corpus(tmp_path / "docs", questions)


@pytest.mark.skipif(not CHROMA.is_dir(), reason="shared/eval/chroma-chunking is absent")
def test_chroma_dataset_loads_with_the_duplicate_hazard_counted() -> None:
    corpus = load_chroma(CHROMA)
    assert len(corpus.questions) == 472
    references = [ref for question in corpus.questions for ref in question.references]
    assert len(references) == 790
    assert sorted(corpus.documents) == [
        "chatlogs",
        "finance",
        "pubmed",
        "state_of_the_union",
        "wikitexts",
    ]
    finance = [ref for ref in references if ref.document == "finance"]
    assert len(finance) == 143
    assert sum(ref.ambiguous for ref in finance) == 96  # the README's figure
    # Offsets point at the first occurrence of the excerpt text.
    for ref in finance:
        text = corpus.documents["finance"]
        assert text.find(text[ref.start : ref.end]) == ref.start
