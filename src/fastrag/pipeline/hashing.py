"""Process-independent hashes of configuration values and of length-prefixed strings.

Python's ``hash()`` is salted per process (``PYTHONHASHSEED``), so nothing that names a
cache entry or a chunk may use it. Everything here is sha256 over an explicit encoding:
``stable_hash`` over a canonical JSON form of a config value, ``sha256_parts`` over
length-prefixed UTF-8 strings (so ``("ab", "c")`` and ``("a", "bc")`` never collide).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from enum import Enum
from typing import Any

from fastrag.exceptions import ConfigurationError

__all__ = ["canonical_json", "sha256_parts", "stable_hash"]

_SUPPORTED = (
    "str, int, float, bool, None, an enum, bytes, a path, a list/tuple/set, a mapping with "
    "str keys, a dataclass of those, or an object exposing a str 'config_hash' or 'identity'"
)


def sha256_parts(*parts: str) -> str:
    """Hex sha256 over each part's UTF-8 bytes, each prefixed by its 8-byte length."""
    digest = hashlib.sha256()
    for part in parts:
        encoded = part.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    return digest.hexdigest()


def canonical_json(value: Any) -> str:
    """The canonical JSON text ``stable_hash`` digests (exposed for debugging identities).

    Mappings are sorted by key, tuples and lists are the same array, sets are sorted by their
    members' canonical form, enums contribute their value and floats their ``repr``. A value
    with no stable form raises ``ConfigurationError`` naming where it sits in ``value``.
    """
    return json.dumps(
        _canonical(value, "config"),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=True,
    )


def stable_hash(value: Any) -> str:
    """Hex sha256 of ``canonical_json(value)``: equal in every process for equal values."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def _canonical(value: Any, path: str) -> Any:
    # Order matters: bool is an int, a StrEnum is a str, and a dataclass may be a Mapping.
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Enum):
        return _canonical(value.value, path)
    if isinstance(value, int | float | str):
        # json writes floats with float.__repr__, which round-trips exactly.
        return value
    if isinstance(value, bytes):
        return {"$bytes": value.hex()}
    if isinstance(value, os.PathLike):
        return {"$path": os.fspath(value)}
    if isinstance(value, Mapping):
        return {
            _key(key, path): _canonical(item, f"{path}[{key!r}]") for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_canonical(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, set | frozenset):
        members = [_canonical(item, f"{path}{{...}}") for item in value]
        return {"$set": sorted(members, key=lambda member: json.dumps(member, sort_keys=True))}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            field.name: _canonical(getattr(value, field.name), f"{path}.{field.name}")
            for field in dataclasses.fields(value)
        }
        return {"$dataclass": type(value).__qualname__, "fields": fields}
    for attribute in ("config_hash", "identity"):
        marker = getattr(value, attribute, None)
        if isinstance(marker, str):
            return {f"${attribute}": marker}
    raise ConfigurationError(
        f"{path} is a {type(value).__name__} ({value!r:.60}), which has no process-stable "
        f"hash; return {_SUPPORTED} from config() instead"
    )


def _key(key: object, path: str) -> str:
    if isinstance(key, Enum):
        key = key.value
    if not isinstance(key, str):
        raise ConfigurationError(
            f"{path} has a key {key!r} of type {type(key).__name__}; mapping keys in a "
            "config must be str (or str-valued enums) so their order and form are stable"
        )
    # Escape a leading '$' so a user key never collides with the type tags above.
    return f"${key}" if key.startswith("$") else key
