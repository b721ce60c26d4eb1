"""``stable_hash`` / ``config_hash``: canonical, sensitive to every value, process-stable."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ConfigurationError
from fastrag.models import ContentFormat
from fastrag.pipeline import canonical_json, sha256_parts, stable_hash
from tests.unit.pipeline._steps import WordStep

REPO = Path(__file__).resolve().parents[3]


class Color(Enum):
    RED = "red"


@dataclass(frozen=True)
class Sizes:
    low: int
    high: float


def test_mapping_order_does_not_matter_but_values_do() -> None:
    assert stable_hash({"a": 1, "b": 2}) == stable_hash({"b": 2, "a": 1})
    assert stable_hash({"a": 1}) != stable_hash({"a": 2})
    assert stable_hash({"a": 1}) != stable_hash({"a": 1.0})
    assert stable_hash({"a": 1}) != stable_hash({"a": True})
    assert stable_hash({"a": None}) != stable_hash({"a": "None"})


def test_canonical_forms() -> None:
    assert stable_hash((1, 2)) == stable_hash([1, 2])
    assert stable_hash({3, 1, 2}) == stable_hash(frozenset({2, 3, 1}))
    assert stable_hash(ContentFormat.MARKDOWN) == stable_hash("markdown")
    assert stable_hash(Color.RED) == stable_hash("red")
    assert canonical_json({"b": 0.1, "a": [1, "x"]}) == '{"a":[1,"x"],"b":0.1}'
    assert stable_hash(Sizes(1, 2.5)) != stable_hash(Sizes(1, 2.25))
    assert stable_hash(Path("/tmp/x")) != stable_hash("/tmp/x")


def test_dollar_keys_cannot_forge_a_type_tag() -> None:
    assert stable_hash({"$bytes": "6869"}) != stable_hash(b"hi")


def test_objects_with_identity_hash_by_it() -> None:
    class Tokenizer:
        identity = "utf8-bytes:v1"

    class Other:
        identity = "cl100k_base"

    assert stable_hash({"t": Tokenizer()}) == stable_hash({"t": Tokenizer()})
    assert stable_hash({"t": Tokenizer()}) != stable_hash({"t": Other()})


def test_unhashable_value_is_named_by_its_path() -> None:
    with pytest.raises(ConfigurationError, match=r"config\['model'\]\[1\] is a object"):
        stable_hash({"model": [1, object()]})
    with pytest.raises(ConfigurationError, match="key 3 of type int"):
        stable_hash({"ok": {3: "x"}})


def test_sha256_parts_is_length_prefixed() -> None:
    assert sha256_parts("ab", "c") != sha256_parts("a", "bc")
    assert sha256_parts("a") == sha256_parts("a")


def test_config_hash_follows_class_and_config() -> None:
    assert WordStep(suffix="!").config_hash == WordStep(suffix="!").config_hash
    assert WordStep(suffix="!").config_hash != WordStep(suffix="?").config_hash

    class Renamed(WordStep):
        pass

    assert Renamed(suffix="!").config_hash != WordStep(suffix="!").config_hash


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(), json_values, max_size=6))
def test_key_order_never_changes_the_hash(config: dict[str, object]) -> None:
    reordered = dict(reversed(list(config.items())))
    assert stable_hash(config) == stable_hash(reordered)


_PROBE = """
import sys
from fastrag.pipeline import stable_hash
from tests.unit.pipeline._steps import WordStep
print(WordStep(suffix="s").config_hash)
print(stable_hash({"set": {"a", "b", "c", "d"}, "frozen": frozenset({1.5, 2}), "t": ("x",)}))
"""


def _probe(seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    result = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env=env,
    )
    return result.stdout.split()


def test_config_hash_is_equal_across_processes_with_different_hash_seeds() -> None:
    first, second = _probe("1"), _probe("4242")
    assert first == second
    assert first[0] == WordStep(suffix="s").config_hash
    assert len(first) == 2
