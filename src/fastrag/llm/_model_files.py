"""Facts about a local sentence-transformers directory that need no model load.

Loading all-MiniLM-L6-v2 costs seconds (mostly importing ``transformers``); a pipeline
needs the model's identity for every cache key and its input limit before the first
batch, so both are read from the files: the identity is a digest of every file, and the
limit is the ``max_seq_length`` key of ``sentence_bert_config.json`` — the same key
sentence-transformers itself reads (the loaded value is cross-checked on load).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from fastrag.exceptions import ConfigurationError

__all__ = ["configured_max_seq_length", "directory_digest"]

_DIGESTS: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}
_DIGESTS_LOCK = threading.Lock()


def directory_digest(directory: Path) -> str:
    """sha256 over every file's relative path and bytes, sorted; memoized per file stats.

    Hashing the ~90 MB of weights takes a fraction of a second; the memo (keyed by every
    file's path, size and mtime) makes a second model over the same directory free.
    """
    files = sorted(path for path in directory.rglob("*") if path.is_file())
    stats = tuple(
        (path.relative_to(directory).as_posix(), path.stat().st_size, path.stat().st_mtime_ns)
        for path in files
    )
    key = (os.fspath(directory.resolve()), stats)
    with _DIGESTS_LOCK:
        known = _DIGESTS.get(key)
    if known is not None:
        return known
    digest = hashlib.sha256()
    for path, (relative, _, _) in zip(files, stats, strict=True):
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    value = digest.hexdigest()
    with _DIGESTS_LOCK:
        _DIGESTS[key] = value
    return value


def configured_max_seq_length(directory: Path) -> int | None:
    """``max_seq_length`` from ``sentence_bert_config.json``, or None when not declared."""
    path = directory / "sentence_bert_config.json"
    if not path.is_file():
        return None
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigurationError(
            f"cannot read {os.fspath(path)!r} ({error}); reinstall or re-export the model"
        ) from error
    value = config.get("max_seq_length") if isinstance(config, dict) else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(
            f"{os.fspath(path)!r} declares max_seq_length={value!r}; expected a positive int"
        )
    return value
