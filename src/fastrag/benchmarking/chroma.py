"""Loader for Chroma's general chunking-evaluation dataset (``questions_df.csv`` + corpora).

The dataset (Smith & Troynikov, "Evaluating Chunking Strategies for Retrieval", Chroma,
2024) has five corpora and 472 questions whose references are character offsets into one
corpus each. Offsets point at the *first* occurrence of the excerpt text; ~40 % of
``finance.md`` repeats earlier text, so a chunk of a later copy holds the same words at
other offsets. ``LabelledCorpus.notes`` records how many excerpts are repeated, and the
evaluation maps chunks to the first occurrence of their text (``spans="first"``) as
the report's harness did.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Final

from fastrag.benchmarking.corpus import LabelledCorpus, Question, Reference, load_documents
from fastrag.exceptions import ConfigurationError

__all__ = ["CHROMA_CORPORA", "default_chroma_dir", "load_chroma"]

CHROMA_CORPORA: Final = ("chatlogs", "finance", "pubmed", "state_of_the_union", "wikitexts")


def default_chroma_dir() -> Path:
    """``$FASTRAG_CHROMA_DATASET``, else ``shared/eval/chroma-chunking`` beside the repo."""
    override = os.environ.get("FASTRAG_CHROMA_DATASET")
    if override:
        return Path(override)
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "eval" / "chroma-chunking"
        if candidate.is_dir():
            return candidate
    return Path("shared/eval/chroma-chunking")


def load_chroma(directory: str | os.PathLike[str] | None = None) -> LabelledCorpus:
    """The dataset as a ``LabelledCorpus``: documents named by corpus id (file stem)."""
    root = default_chroma_dir() if directory is None else Path(directory)
    csv_path = root / "questions_df.csv"
    if not csv_path.is_file():
        raise ConfigurationError(
            f"no questions_df.csv in {os.fspath(root)!r}; pass the folder of Chroma's "
            f"chunking-evaluation dataset (--dataset-dir or $FASTRAG_CHROMA_DATASET)"
        )
    files = load_documents(root / "corpora", suffixes={".md"})
    documents = {Path(name).stem: text for name, text in files.items()}
    questions: list[Question] = []
    repeated = 0
    with csv_path.open(encoding="utf-8", newline="") as handle:
        for index, row in enumerate(csv.DictReader(handle)):
            corpus_id = row["corpus_id"]
            text = documents.get(corpus_id)
            if text is None:
                raise ConfigurationError(
                    f"{os.fspath(csv_path)} row {index}: corpus {corpus_id!r} has no file "
                    f"corpora/{corpus_id}.md"
                )
            references = []
            for raw in json.loads(row["references"]):
                start, end = int(raw["start_index"]), int(raw["end_index"])
                if text[start:end] != raw["content"]:
                    raise ConfigurationError(
                        f"{os.fspath(csv_path)} row {index}: reference [{start}, {end}) "
                        f"does not match its content in {corpus_id}.md; the dataset is "
                        f"damaged or not decoded as UTF-8"
                    )
                occurrences = _occurrences(text, raw["content"])
                repeated += occurrences > 1
                references.append(
                    Reference(corpus_id, start, end, None, occurrences > 1, occurrences)
                )
            questions.append(Question(str(index), row["question"], tuple(references)))
    note = (
        f"{repeated} reference excerpts occur more than once in their corpus; offsets "
        f"point at the first occurrence"
    )
    return LabelledCorpus("chroma", documents, tuple(questions), (note,))


def _occurrences(text: str, quote: str) -> int:
    count, cursor = 0, text.find(quote)
    while cursor != -1:
        count += 1
        cursor = text.find(quote, cursor + 1)
    return count
