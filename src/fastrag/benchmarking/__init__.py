"""Benchmarking: which chunking configuration retrieves best on labelled data, at what cost.

- ``corpus``: the labelled-corpus format (documents + questions with located excerpts);
- ``chroma``: loader for Chroma's public chunking-evaluation dataset;
- ``metrics``: character-level recall, precision, IoU, precision-Ω, hit, evidence split,
  section accuracy (pure functions; formulas in the module and docs/benchmarking.md);
- ``configs`` / ``chunking``: configurations and the chunks (with source ranges) they make;
- ``retrieval``: exact cosine search, fixed-k and token-budget protocols;
- ``retrieval_settings`` / ``ranking``: BM25 fusion (``lexical``, ``fusion``), context
  windows (``windows``) and de-duplication, measured as evaluation settings;
- ``evaluate``: the whole run; ``report``: table, JSON and plots.

Importing this package is cheap: models, numpy-heavy work and matplotlib load on use.
"""

from __future__ import annotations

from fastrag.benchmarking.configs import ChunkerConfig, expand_grid, load_configs, parse_grid
from fastrag.benchmarking.corpus import (
    LabelledCorpus,
    Question,
    Reference,
    load_documents,
    load_labelled_corpus,
    load_questions,
    locate_quote,
)
from fastrag.benchmarking.metrics import MeanStd, QuestionScore, score_question

__all__ = [
    "ChunkerConfig",
    "LabelledCorpus",
    "MeanStd",
    "Question",
    "QuestionScore",
    "Reference",
    "expand_grid",
    "load_configs",
    "load_documents",
    "load_labelled_corpus",
    "load_questions",
    "locate_quote",
    "parse_grid",
    "score_question",
]
