"""One real ingestion of the example documents, shared by the storing tests."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.ingestion.storing._records import example_records


@pytest.fixture(scope="session")
def example_records_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], ...]:
    """The records, built once; tests copy them (see ``records``) so none can leak edits."""
    return tuple(example_records(tmp_path_factory.mktemp("records")))


@pytest.fixture
def records(example_records_once: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    return [dict(record) for record in example_records_once]
