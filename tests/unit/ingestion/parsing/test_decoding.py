"""Decoding keeps text exact, strips and records BOMs, and never replaces bytes silently."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
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
    decoded = decode_text(b"ok \xff then \xc3\x28 end", "bad.md")
    assert decoded.text == "ok \ufffd then \ufffd( end"
    assert decoded.diagnostics == (
        "undecodable: 2 byte(s) in 2 place(s) are not valid utf-8 and were replaced with "
        "U+FFFD; the first at byte offset 3",
    )


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
