"""JSON encoding of cached documents that round-trips to ``==`` values — never pickle.

Cache files are untrusted input (they outlive the process and may be copied around), so
they hold JSON, which decodes to data and cannot execute code. Plain JSON would turn a
tuple into a list and a ``ContentFormat`` into a str, and a replay would then differ from
the fresh output; so non-JSON shapes get a one-key tag object, and a user key that starts
with ``$`` is escaped with a second ``$`` so it can never be mistaken for a tag.

Supported metadata values: None, bool, int, float, str, bytes, ``ContentFormat``, lists,
tuples and mappings with str keys, nested freely. Other enums are stored by value (a
``StrEnum`` replays as its str, which compares equal). Anything else raises
``UncacheableValueError`` naming the document and the key when the entry is written —
never a silent change.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

from fastrag.exceptions import CacheError
from fastrag.models import ContentFormat, Document
from fastrag.pipeline.hashing import sha256_parts

__all__ = [
    "UncacheableValueError",
    "decode_metadata",
    "document_checksum",
    "encode_metadata",
    "item_fingerprint",
]


class UncacheableValueError(CacheError):
    """A document's metadata holds a value the JSON cache cannot store faithfully.

    A fault of one item, not of the store: a step reports it like any item failure.
    """


_TUPLE = "$tuple"
_BYTES = "$bytes"
_FORMAT = "$format"
_TAGS = frozenset({_TUPLE, _BYTES, _FORMAT})


def encode_metadata(metadata: Mapping[str, Any], document_id: str) -> str:
    """Compact JSON of ``metadata`` keeping key order (so replays serialize identically)."""
    tree = _encode(metadata, document_id, "metadata")
    return json.dumps(tree, ensure_ascii=False, separators=(",", ":"), allow_nan=True)


def decode_metadata(text: str) -> dict[str, Any]:
    """Inverse of ``encode_metadata``; raises ``ValueError`` on a malformed payload."""
    value = _decode(json.loads(text))
    if not isinstance(value, dict):
        raise ValueError(f"cached metadata is a {type(value).__name__}, not an object")
    return value


def document_checksum(document_id: str, source_id: str, metadata_json: str, content: str) -> str:
    """Digest stored beside each cached row; a mismatch on read means a damaged file."""
    return sha256_parts(document_id, source_id, metadata_json, content)[:32]


def item_fingerprint(item: Document) -> str:
    """Hash of everything about an input document except its id (which is keyed apart).

    Part of every cache key, so an edited document — new text or new metadata under the
    same id — misses the cache instead of replaying stale output.
    """
    return sha256_parts(item.source_id, item.content, encode_metadata(item.metadata, item.id))


def _encode(value: Any, document_id: str, path: str) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value.value if isinstance(value, Enum) else value
    if isinstance(value, ContentFormat):
        return {_FORMAT: value.value}
    if isinstance(value, str):
        return value.value if isinstance(value, Enum) else value
    if isinstance(value, bytes):
        return {_BYTES: base64.b64encode(value).decode("ascii")}
    if isinstance(value, list):
        return [_encode(item, document_id, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, tuple):
        items = [_encode(item, document_id, f"{path}[{i}]") for i, item in enumerate(value)]
        return {_TUPLE: items}
    if isinstance(value, Mapping):
        encoded: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise UncacheableValueError(
                    f"cannot cache document {document_id!r}: {path} has a non-str key {key!r}; "
                    "use str keys in metadata, or disable caching for this step (cache=False)"
                )
            escaped = f"${key}" if key.startswith("$") else key
            encoded[escaped] = _encode(item, document_id, f"{path}[{key!r}]")
        return encoded
    raise UncacheableValueError(
        f"cannot cache document {document_id!r}: {path} is a {type(value).__name__}, which "
        "the JSON cache cannot store faithfully; use None, bool, int, float, str, bytes, "
        "lists, tuples or str-keyed mappings in metadata, or pass cache=False to this step"
    )


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, item),) = value.items()
        if key in _TAGS:
            return _decode_tagged(key, item)
    return {(key[1:] if key.startswith("$") else key): _decode(item) for key, item in value.items()}


def _decode_tagged(tag: str, payload: Any) -> Any:
    if tag == _TUPLE:
        if not isinstance(payload, list):
            raise ValueError("a $tuple payload must be an array")
        return tuple(_decode(item) for item in payload)
    if not isinstance(payload, str):
        raise ValueError(f"a {tag} payload must be a string")
    if tag == _BYTES:
        return base64.b64decode(payload.encode("ascii"), validate=True)
    return ContentFormat(payload)
