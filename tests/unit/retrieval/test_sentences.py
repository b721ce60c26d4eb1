"""Sentences for ``embed = "fuse_sentences"``: the packer's sentence ends plus line breaks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from fastrag.benchmarking.ranking import _best_sentence_scores
from fastrag.retrieval.sentences import SentenceIndex, chunk_sentences


def test_sentences_end_at_punctuation_then_space_and_at_line_breaks() -> None:
    text = 'Rates rose 2.5% in May. "Why?" she asked.\n- item one\n\n| a | b |\nTail'
    assert chunk_sentences(text) == [
        "Rates rose 2.5% in May.",
        '"Why?"',
        "she asked.",
        "- item one",
        "| a | b |",
        "Tail",
    ]


def test_decimals_abbreviations_without_space_and_cjk_stops() -> None:
    assert chunk_sentences("v1.2.3 is out.It works") == ["v1.2.3 is out.It works"]
    assert chunk_sentences("你好。再见。") == ["你好。", "再见。"]
    assert chunk_sentences("  \n ") == ["  \n "]  # nothing to cut: the chunk itself


def test_the_index_keeps_each_chunks_sentences_together_in_order() -> None:
    index = SentenceIndex(["One. Two.", "Three", "Four.\nFive. Six."])
    assert index.texts == ["One.", "Two.", "Three", "Four.", "Five.", "Six."]
    assert index.owners == [0, 0, 1, 2, 2, 2]
    assert index.starts == [0, 2, 3]


class _TableEmbedder:
    """Unit vectors looked up by text: the maximum logic, not the model, is under test."""

    def __init__(self, vectors: dict[str, Sequence[float]]) -> None:
        self.vectors = vectors

    def embed(self, texts: Sequence[str], progress: object = None) -> npt.NDArray[np.float32]:
        return np.array([self.vectors[text] for text in texts], dtype=np.float32)


def test_a_chunk_scores_its_best_sentence() -> None:
    embedder = _TableEmbedder({"A.": [1, 0], "B.": [0, 1], "C.": [0.6, 0.8], "D": [-1, 0]})
    questions = np.array([[1, 0], [0, 1]], dtype=np.float32)
    scores = _best_sentence_scores(questions, ["A. B.", "C.", "D"], embedder, None)  # type: ignore[arg-type]
    assert scores.tolist() == [[1.0, 0.6000000238418579, -1.0], [1.0, 0.800000011920929, 0.0]]
