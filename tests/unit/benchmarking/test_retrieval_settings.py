"""Retrieval settings: configuration-file tables, validation and labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.benchmarking.configs import load_configs
from fastrag.benchmarking.retrieval_settings import RetrievalSettings, retrieval_settings
from fastrag.exceptions import ConfigurationError

FILE = """
[retrieval]
retrieval = "hybrid"

[[configs]]
name = "file default"
max_tokens = 200

[[configs]]
name = "own table"
max_tokens = 200
[configs.retrieval]
embed = "fuse"
bm25_over = "window"
dedupe = true
window_tokens = 128
"""


def test_file_table_applies_to_its_configurations_and_a_configuration_overrides(
    tmp_path: Path,
) -> None:
    path = tmp_path / "configs.toml"
    path.write_text(FILE, encoding="utf-8")
    shared, own = load_configs(path)
    assert shared.retrieval == RetrievalSettings(retrieval="hybrid")
    assert own.retrieval == RetrievalSettings("hybrid", "window", "fuse", True, 128)
    assert own.params == {"max_tokens": 200}
    assert own.describe()["retrieval"] == {
        "retrieval": "hybrid",
        "bm25_over": "window",
        "embed": "fuse",
        "dedupe": True,
        "window_tokens": 128,
    }


def test_a_configuration_without_a_table_has_none(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text('{"name": "plain", "max_tokens": 128}', encoding="utf-8")
    (config,) = load_configs(path)
    assert config.retrieval is None
    assert "retrieval" not in config.describe()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"retrieval": "sparse"}, "retrieval retrieval = 'sparse' is not one of"),
        ({"embed": "both"}, "retrieval embed = 'both'"),
        ({"bm25": "window"}, "unknown retrieval key bm25"),
        ({"dedupe": "yes"}, "dedupe must be true or false"),
        ({"window_tokens": 0}, "window_tokens must be an integer >= 1"),
        ({"window_tokens": True}, "window_tokens must be an integer >= 1"),
    ],
)
def test_invalid_settings_name_the_file_and_the_fix(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=r"^configs\.toml: ") as caught:
        retrieval_settings(raw, "configs.toml")
    assert message in str(caught.value)


def test_labels() -> None:
    assert RetrievalSettings().label() == ""
    assert RetrievalSettings(dedupe=True).label() == "dense, dedupe"
    assert (
        RetrievalSettings("hybrid", "window", "fuse", True, 254).label()
        == "hybrid, bm25 over window, embed fuse, window 254, dedupe"
    )
    assert RetrievalSettings("bm25", embed="fuse").label() == "bm25, bm25 over chunk"
    assert not RetrievalSettings("hybrid").uses_windows
    assert RetrievalSettings("hybrid", "window").uses_windows
    assert not RetrievalSettings("dense", "window").uses_windows
    assert RetrievalSettings(embed="window").uses_windows
