"""Per-file metadata sidecars: ``<file>.meta.json`` beside a document.

A sidecar carries the caller's attributes of one document — tenant, ACL, retention,
classification — which seed 002 requires to be attached before indexing. It is data from
the input folder, so it is parsed defensively: size-capped, strict UTF-8 JSON, one object
with str keys, no duplicate keys, no NaN/Infinity, and no key that would overwrite what
discovery or a parser records (a sidecar must not be able to forge a document's source,
hash or format). JSON arrays become tuples so the metadata stays immutable and replays
from the step cache equal to what was first produced.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fastrag.exceptions import ConfigurationError, ParsingError

__all__ = [
    "MAX_SIDECAR_BYTES",
    "RESERVED_METADATA_KEYS",
    "SIDECAR_SUFFIX",
    "check_caller_metadata",
    "load_sidecar",
]

SIDECAR_SUFFIX = ".meta.json"
"""``notes.md.meta.json`` holds the metadata of ``notes.md``."""

MAX_SIDECAR_BYTES = 1024 * 1024
"""A sidecar larger than this (1 MiB) is rejected: metadata, not a document."""

RESERVED_METADATA_KEYS: frozenset[str] = frozenset(
    {
        # written by discovery
        "path",
        "relative_path",
        "size",
        "sha256",
        "source_type",
        "detected_by",
        # written by parsers
        "content_format",
        "source",
        "parser_version",
        "parse_diagnostics",
        "encoding",
        # written by chunkers; a caller value would be silently replaced or misread
        "document_id",
        "parent_id",
        "chunk_index",
        "structure_version",
    }
)


def load_sidecar(path: Path, *, max_bytes: int = MAX_SIDECAR_BYTES) -> Mapping[str, Any]:
    """Parse one sidecar into a read-only mapping, or raise ``ParsingError`` saying why.

    The error names the sidecar file and what to fix; it never quotes its values.
    """
    label = path.name
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise ParsingError(
            f"cannot read metadata sidecar {label!r}: {error.strerror or error}; fix its "
            "permissions or remove it"
        ) from error
    if len(data) > max_bytes:
        raise ParsingError(
            f"metadata sidecar {label!r} is larger than the {max_bytes}-byte cap; a sidecar "
            "holds a document's attributes (tenant, acl, ...), not content"
        )
    try:
        text = data.decode("utf-8-sig")
        value = json.loads(text, object_pairs_hook=_unique_object, parse_constant=_reject_constant)
    except UnicodeDecodeError as error:
        raise ParsingError(
            f"metadata sidecar {label!r} is not UTF-8 (invalid byte at offset {error.start}); "
            "save it as UTF-8 JSON"
        ) from error
    except (ValueError, RecursionError) as error:
        raise ParsingError(
            f"metadata sidecar {label!r} is not valid JSON ({_json_problem(error)}); it must "
            'be one JSON object such as {"tenant": "acme", "acl": ["group:eng"]}'
        ) from error
    if not isinstance(value, dict):
        raise ParsingError(
            f"metadata sidecar {label!r} holds a JSON {type(value).__name__}, not an object; "
            'write one object such as {"tenant": "acme"}'
        )
    try:
        return check_caller_metadata(value, origin=f"metadata sidecar {label!r}")
    except ConfigurationError as error:
        raise ParsingError(str(error)) from error


def check_caller_metadata(metadata: Mapping[str, Any], *, origin: str) -> Mapping[str, Any]:
    """Validate caller metadata keys and freeze arrays into tuples (``origin`` names it)."""
    if not isinstance(metadata, Mapping):
        raise ConfigurationError(
            f"{origin} must be a mapping of str keys to values (got {type(metadata).__name__})"
        )
    frozen: dict[str, Any] = {}
    for key, item in metadata.items():
        if not isinstance(key, str) or not key:
            raise ConfigurationError(
                f"{origin} has the key {key!r}; metadata keys must be non-empty strings"
            )
        if key in RESERVED_METADATA_KEYS:
            raise ConfigurationError(
                f"{origin} sets the reserved key {key!r}, which fastrag records itself; "
                f"rename it (reserved: {', '.join(sorted(RESERVED_METADATA_KEYS))})"
            )
        frozen[key] = _freeze(item)
    return MappingProxyType(frozen)


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(item) for item in value)
    if isinstance(value, Mapping):
        return {str(key): _freeze(item) for key, item in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigurationError(f"metadata value {value!r} is not a finite number")
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_problem(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "nested too deeply"
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at line {error.lineno} column {error.colno}"
    return str(error)
