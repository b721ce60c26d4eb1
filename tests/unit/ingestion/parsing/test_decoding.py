"""Decoding keeps text exact, strips and records BOMs, and never replaces bytes silently."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ParsingError
from fastrag.ingestion.steps.parsing.decoding import decode_text


def test_utf8_is_kept_exactly_including_line_endings() -> None:
    decoded = decode_text("a\r\nb\rc\n\tü€😀".encode(), "x.txt")
    assert (decoded.text, decoded.encoding, decoded.diagnostics) == (
        "a\r\nb\rc\n\tü€😀",
        "utf-8",
        (),
    )


@pytest.mark.parametrize(
    ("bom", "codec", "label"),
    [
        (codecs.BOM_UTF8, "utf-8", "UTF-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
        (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
    ],
)
def test_bom_is_stripped_and_recorded(bom: bytes, codec: str, label: str) -> None:
    decoded = decode_text(bom + "Héllo\nwörld".encode(codec), "x.txt")
    assert (decoded.text, decoded.encoding) == ("Héllo\nwörld", codec)
    assert decoded.diagnostics == (f"bom: removed a {label} byte-order mark ({len(bom)} bytes)",)


def test_invalid_utf8_is_replaced_and_counted_with_the_first_offset() -> None:
    # "né" is valid UTF-8, so the text is UTF-8 with damage, not legacy 8-bit text.
    decoded = decode_text(b"n\xc3\xa9 \xff then \xc3\x28 end", "bad.md")
    assert (decoded.text, decoded.encoding) == ("né \ufffd then \ufffd( end", "utf-8")
    assert decoded.diagnostics == (
        "undecodable: 2 byte(s) in 2 place(s) are not valid utf-8 and were replaced with "
        "U+FFFD; the first at byte offset 4",
    )


# Changelog lines like those of Debian's ed and libxslt, which are ISO-8859-1 files.
LATIN1_CHANGELOG = (
    "\t* Reported by Sören Tempel. Thanks to Xosé Vázquez Pérez.\n"
    "\t* Café, naïve, Œuvre – “quoted” 50 €.\n"
).encode("cp1252")


def test_undeclared_text_that_is_not_utf8_at_all_is_read_as_cp1252() -> None:
    decoded = decode_text(LATIN1_CHANGELOG, "ChangeLog")
    assert (decoded.text, decoded.encoding) == (LATIN1_CHANGELOG.decode("cp1252"), "cp1252")
    assert decoded.diagnostics == (
        "encoding: no charset declared and not UTF-8 (11 byte(s) above 0x7F, no UTF-8 "
        "multi-byte sequence); decoded as cp1252 (windows-1252). If that is wrong, convert "
        "the file to UTF-8",
    )


def test_cp1252_bytes_it_leaves_undefined_are_still_replaced_and_counted() -> None:
    decoded = decode_text(b"caf\xe9 \x81 end", "x.txt")
    assert (decoded.text, decoded.encoding) == ("café \ufffd end", "cp1252")
    assert decoded.diagnostics[-1] == (
        "undecodable: 1 byte(s) in 1 place(s) are not valid cp1252 and were replaced with "
        "U+FFFD; the first at byte offset 5"
    )


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"caf\xe9 and caf\xc3\xa9", None),  # one valid UTF-8 sequence: UTF-8 with damage
        (b"caf\xe9", "utf-8"),  # declared UTF-8 is believed
        (codecs.BOM_UTF8 + b"caf\xe9", None),  # so is a BOM
    ],
)
def test_legacy_fallback_only_without_declaration_and_any_utf8(
    data: bytes, encoding: str | None
) -> None:
    decoded = decode_text(data, "x.txt", encoding=encoding)
    assert decoded.encoding == "utf-8"
    assert "caf\ufffd" in decoded.text
    assert decoded.diagnostics[-1].startswith("undecodable: 1 byte(s)")


def test_offsets_count_the_bom() -> None:
    decoded = decode_text(codecs.BOM_UTF8 + b"abcdefgh\xff", "bad.md")
    assert decoded.diagnostics[-1].endswith("the first at byte offset 11")


def test_nul_bytes_without_utf16_bom_look_binary() -> None:
    with pytest.raises(
        ParsingError, match=r"^notes\.md: looks binary \(a NUL byte at byte offset 2"
    ):
        decode_text(b"ab\x00cd", "notes.md")


def test_mostly_undecodable_bytes_look_binary() -> None:
    with pytest.raises(ParsingError, match=r"^blob\.md: looks binary \(over 30% of its"):
        decode_text(bytes(range(0x80, 0x100)) * 8, "blob.md")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs", "Cc"))))
# Found by hypothesis: a text of U+FFFD alone was refused as binary, its own
# replacement characters counted as undecodable bytes.
@example("\ufffd")
def test_valid_text_round_trips_in_every_supported_encoding(text: str) -> None:
    for bom, codec in (
        (b"", "utf-8"),
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
    ):
        assert decode_text(bom + text.encode(codec), "x").text == text


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_decode_or_are_refused_never_crash(data: bytes) -> None:
    refusal: ParsingError | None = None
    try:
        decoded = decode_text(data, "x.bin")
    except ParsingError as error:
        refusal = error
    if refusal is not None:
        assert str(refusal).startswith("x.bin: looks binary")
        return
    reported = any(note.startswith("undecodable") for note in decoded.diagnostics)
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    if not utf16 and "\ufffd".encode() not in data:  # every U+FFFD is then a replacement
        assert reported == ("\ufffd" in decoded.text)
