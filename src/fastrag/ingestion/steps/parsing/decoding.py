"""Bytes to text without silent loss: BOMs, UTF-8/UTF-16, counted replacements, binary checks.

A parser's text is what every offset downstream points into, so decoding must be exact
and honest: a byte-order mark is removed (and recorded), line endings are left alone, an
undecodable byte becomes U+FFFD *and* a diagnostic with the count and the first byte
offset — never a quiet ``errors="replace"``. Content that is not text at all (NUL bytes
without a UTF-16 BOM, or mostly replacement/control characters once decoded) is refused
with a ``ParsingError`` rather than turned into a page of garbage chunks.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from fastrag.exceptions import ParsingError
from fastrag.ingestion._sniff import binary_ratio

__all__ = ["BINARY_RATIO", "Decoded", "decode_text", "is_ascii_compatible"]

BINARY_RATIO = 0.3
"""Decoded text with a larger share of U+FFFD and C0 control characters is refused."""

_ERRORS = "fastrag.count-replace"
_SINK: ContextVar[list[tuple[int, int]] | None] = ContextVar("fastrag_decode_sink", default=None)
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)


@dataclass(frozen=True, slots=True)
class Decoded:
    """Decoded text, the codec used, and what a reader of the output should know."""

    text: str
    encoding: str
    diagnostics: tuple[str, ...] = ()


def _count_and_replace(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: replace like ``"replace"``, but record each bad byte range."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    sink = _SINK.get()
    if sink is not None:
        sink.append((error.start, error.end))
    return "\ufffd", error.end


codecs.register_error(_ERRORS, _count_and_replace)


def decode_text(
    data: bytes, name: str, *, encoding: str = "utf-8", diagnostics: tuple[str, ...] = ()
) -> Decoded:
    """Decode ``data`` of the file ``name``: BOM first, else ``encoding`` (UTF-8 by default).

    ``encoding`` must be ASCII-compatible when given (see ``is_ascii_compatible``);
    ``diagnostics`` are prepended to the ones decoding adds (e.g. how a charset was
    found). Raises ``ParsingError`` naming ``name`` when the content looks binary.
    """
    notes = list(diagnostics)
    body, offset = data, 0
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            encoding, body, offset = codec, data[len(bom) :], len(bom)
            notes.append(f"bom: removed a {label} byte-order mark ({len(bom)} bytes)")
            break
    else:
        nul = data.find(b"\x00")
        if nul >= 0:
            raise ParsingError(
                f"{name}: looks binary (a NUL byte at byte offset {nul} and no UTF-16 "
                "byte-order mark); it is not a text document — exclude it, or save text "
                "as UTF-8 or as UTF-16 with a BOM"
            )
    with _collecting() as bad:
        text = body.decode(encoding, errors=_ERRORS)
    if bad:
        count = sum(end - start for start, end in bad)
        notes.append(
            f"undecodable: {count} byte(s) in {len(bad)} place(s) are not valid {encoding} "
            f"and were replaced with U+FFFD; the first at byte offset {bad[0][0] + offset}"
        )
    if binary_ratio(text) > BINARY_RATIO:
        raise ParsingError(
            f"{name}: looks binary (over {BINARY_RATIO:.0%} of its {len(text)} decoded "
            f"characters are undecodable or control characters as {encoding}); exclude "
            "it, or convert it to UTF-8 text"
        )
    return Decoded(text, encoding, tuple(notes))


def is_ascii_compatible(encoding: str) -> bool:
    """Whether ``encoding`` reads ASCII bytes as ASCII (so a ``<meta charset>`` is trustworthy)."""
    probe = b"<meta charset=x>"
    try:
        return probe.decode(encoding) == probe.decode("ascii")
    except (LookupError, UnicodeDecodeError):
        return False


@contextmanager
def _collecting() -> Iterator[list[tuple[int, int]]]:
    sink: list[tuple[int, int]] = []
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)
