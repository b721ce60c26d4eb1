"""Bytes to text without silent loss: BOMs, UTF-8/UTF-16, counted replacements, binary checks.

A parser's text is what every offset downstream points into, so decoding must be exact
and honest: a byte-order mark is removed (and recorded), line endings are left alone, an
undecodable byte becomes U+FFFD *and* a diagnostic with the count and the first byte
offset — never a quiet ``errors="replace"``. Content that is not text at all (NUL bytes
without a UTF-16 BOM, or mostly replacement/control characters once decoded) is refused
with a ``ParsingError`` rather than turned into a page of garbage chunks.

Legacy 8-bit text: when nothing declares the encoding (no BOM, no charset) and the bytes
are not UTF-8 *at all* — high bytes, but not one valid UTF-8 multi-byte sequence — the
file was written in a legacy 8-bit code page (old changelogs, NEWS files, pages saved
without a charset). It is read as windows-1252, the superset of ISO-8859-1 that HTML
also assumes for undeclared legacy pages, and a diagnostic says so: ``Søren`` survives
instead of becoming ``S\ufffdren``. Text that holds even one valid multi-byte sequence
is UTF-8 with some damage and keeps the counted replacement.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from fastrag.exceptions import ParsingError
from fastrag.ingestion._sniff import binary_ratio

__all__ = ["BINARY_RATIO", "LEGACY_ENCODING", "Decoded", "decode_text", "is_ascii_compatible"]

BINARY_RATIO = 0.3
"""Decoded text with a larger share of U+FFFD and C0 control characters is refused."""

LEGACY_ENCODING = "cp1252"
"""What undeclared text that is not UTF-8 at all is read as (see the module docstring)."""

_ERRORS = "fastrag.count-replace"
_SINK: ContextVar[list[tuple[int, int]] | None] = ContextVar("fastrag_decode_sink", default=None)
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)
_HIGH_BYTES = bytes(range(0x80, 0x100))
# One well-formed UTF-8 multi-byte sequence (RFC 3629 table: no overlongs, no surrogates).
# Hand-written because the standard library can only say *that* decoding failed, not
# whether any sequence was valid, and charset detection libraries are not dependencies.
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
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
    data: bytes, name: str, *, encoding: str | None = None, diagnostics: tuple[str, ...] = ()
) -> Decoded:
    """Decode ``data`` of the file ``name``: BOM first, else ``encoding``.

    ``encoding`` is what the file declares (a ``<meta charset>``); it must be
    ASCII-compatible (see ``is_ascii_compatible``) and is used as given. ``None`` (nothing
    declared) means UTF-8, or ``LEGACY_ENCODING`` for 8-bit text that is not UTF-8 at
    all. ``diagnostics`` are prepended to the ones decoding adds (e.g. how a charset was
    found). Raises ``ParsingError`` naming ``name`` when the content looks binary.
    """
    notes = list(diagnostics)
    declared = encoding is not None
    encoding = encoding or "utf-8"
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
    if bad and not declared and offset == 0 and _is_legacy(body, text, len(bad)):
        high = len(body) - len(body.translate(None, _HIGH_BYTES))
        notes.append(
            f"encoding: no charset declared and not UTF-8 ({high} byte(s) above 0x7F, no "
            f"UTF-8 multi-byte sequence); decoded as {LEGACY_ENCODING} (windows-1252). "
            "If that is wrong, convert the file to UTF-8"
        )
        encoding = LEGACY_ENCODING
        with _collecting() as bad:  # cp1252 leaves 5 bytes undefined: still counted
            text = body.decode(encoding, errors=_ERRORS)
    if bad:
        count = sum(end - start for start, end in bad)
        notes.append(
            f"undecodable: {count} byte(s) in {len(bad)} place(s) are not valid {encoding} "
            f"and were replaced with U+FFFD; the first at byte offset {bad[0][0] + offset}"
        )
    # Each undecodable byte range became one U+FFFD; the text's own U+FFFD are text.
    if binary_ratio(text, len(bad)) > BINARY_RATIO:
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


def _is_legacy(body: bytes, utf8_text: str, replaced: int) -> bool:
    """Undeclared bytes that are 8-bit legacy text: no valid UTF-8 multi-byte sequence,
    and not so damaged as UTF-8 that the binary check refuses them anyway (binary data
    must stay refused, not turn into plausible windows-1252 letters)."""
    return binary_ratio(utf8_text, replaced) <= BINARY_RATIO and _UTF8_SEQUENCE.search(body) is None


@contextmanager
def _collecting() -> Iterator[list[tuple[int, int]]]:
    sink: list[tuple[int, int]] = []
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)
