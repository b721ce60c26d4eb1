"""Fitting sentence windows to an embedder's input limit (``_semantic_fit``).

The counter is a plain function of the text (words plus the two special tokens a BERT
model adds), so every expectation can be worked out by hand. Each case also checks the
invariants: sentences touch and cover the text, and every window is within the limit.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import pytest

from fastrag.ingestion.steps.chunking._semantic_fit import FitReport, fit_windows
from fastrag.ingestion.steps.chunking._semantic_sentences import Sentence, sentences

DEFAULT = re.compile(r"(?<=[.?!])\s+")


def words(texts: Sequence[str]) -> list[int]:
    """Whitespace words + [CLS] + [SEP]."""
    return [len(text.split()) + 2 for text in texts]


def _cores(text: str, spans: Sequence[Sentence]) -> list[str]:
    return [text[s.start : s.core_end] for s in spans]


def _check(text: str, spans: Sequence[Sentence], windows: Sequence[str], limit: int) -> None:
    assert spans[0].start == 0 and spans[-1].end == len(text)
    for before, after in itertools.pairwise(spans):
        assert before.end == after.start
    assert len(windows) == len(spans)
    assert max(words(windows)) <= limit


def test_windows_within_the_limit_are_untouched() -> None:
    text = "One two three. Four five six. Seven eight nine."
    spans = sentences(text, DEFAULT)
    fitted = fit_windows(text, spans, 1, words, limit=11)  # 9 words + 2
    assert fitted.spans == tuple(spans)
    assert fitted.windows == (
        "One two three. Four five six.",
        text,
        "Four five six. Seven eight nine.",
    )
    assert fitted.report == FitReport() and not fitted.report.changed


def test_citation_markers_and_semicolons_become_sentence_ends() -> None:
    text = (
        "IBM was founded in 1911.[11] It was renamed in 1924;[12] Watson led it.[23]: 105  "
        "He set sales goals. Revenue grew."
    )
    spans = sentences(text, DEFAULT)
    assert len(spans) == 2  # the default regex sees no end before "He set"
    fitted = fit_windows(text, spans, 1, words, limit=16)
    assert _cores(text, fitted.spans) == [
        "IBM was founded in 1911.[11]",
        "It was renamed in 1924;[12]",
        "Watson led it.[23]: 105",
        "He set sales goals.",
        "Revenue grew.",
    ]
    assert fitted.report == FitReport(
        resplit_sentences=1, word_split_sentences=0, narrowed_windows=0
    )
    _check(text, fitted.spans, fitted.windows, 16)


def test_a_sentence_over_the_limit_alone_is_cut_at_the_last_word_that_fits() -> None:
    text = "a b c d e f g h i j k. Short one."
    spans = sentences(text, DEFAULT)
    fitted = fit_windows(text, spans, 0, words, limit=6)  # 4 words per piece
    assert _cores(text, fitted.spans) == ["a b c d", "e f g h", "i j k.", "Short one."]
    assert fitted.report.word_split_sentences == 1
    _check(text, fitted.spans, fitted.windows, 6)


def test_one_word_over_the_limit_is_cut_at_characters() -> None:
    blob = "x" * 40

    def chars(texts: Sequence[str]) -> list[int]:
        return [len(text) for text in texts]

    text = f"{blob}. Next."
    fitted = fit_windows(text, sentences(text, DEFAULT), 0, chars, limit=16)
    cores = _cores(text, fitted.spans)
    assert cores == ["x" * 16, "x" * 16, "x" * 8 + ".", "Next."]
    assert "".join(text[s.start : s.end] for s in fitted.spans) == text


def test_windows_still_over_the_limit_take_fewer_neighbours() -> None:
    text = "a b c. d e f. g h i. j k l."
    spans = sentences(text, DEFAULT)
    # Each sentence is 5, a 2-sentence edge window 8, a 3-sentence window 11.
    fitted = fit_windows(text, spans, 1, words, limit=9)
    assert fitted.spans == tuple(spans)
    assert fitted.windows == ("a b c. d e f.", "d e f.", "g h i.", "g h i. j k l.")
    assert fitted.report == FitReport(narrowed_windows=2)
    _check(text, fitted.spans, fitted.windows, 9)


@pytest.mark.parametrize("buffer_size", [0, 1, 2, 3])
def test_every_window_fits_and_sentences_cover_the_text(buffer_size: int) -> None:
    text = (
        "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu.[1] Xi omicron "
        "pi rho sigma tau upsilon phi chi psi omega;[2]\nOne two three four five six seven "
        "eight nine ten eleven twelve. Done.\n\nTail words here"
    )
    fitted = fit_windows(text, sentences(text, DEFAULT), buffer_size, words, limit=7)
    _check(text, fitted.spans, fitted.windows, 7)
    assert fitted.report.changed


def test_a_hostile_sentence_of_many_words_is_cut_into_pieces_that_fit() -> None:
    text = " ".join(f"w{i}" for i in range(50_000)) + ". End."
    fitted = fit_windows(text, sentences(text, DEFAULT), 1, words, limit=258)
    _check(text, fitted.spans, fitted.windows, 258)
    assert [len(text[s.start : s.core_end].split()) for s in fitted.spans[:2]] == [256, 256]
    assert fitted.report.word_split_sentences == 1
