"""The three code examples of seed 000 ("Structure-aware ingestion"), run as written.

The examples themselves live once, verbatim, in ``tests/_seed_examples.py`` so that
other tests can reuse what they build; this module is where they run as tests.
"""

from __future__ import annotations

from tests._seed_examples import (
    extend_normalization,
    keep_provenance_and_parents,
    measure_the_actual_embedding_input,
)


def test_measure_the_actual_embedding_input() -> None:
    measure_the_actual_embedding_input()


def test_keep_provenance_and_parents() -> None:
    keep_provenance_and_parents()


def test_extend_normalization() -> None:
    extend_normalization()
