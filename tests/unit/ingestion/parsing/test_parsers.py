"""Parsers: agreed metadata, content identity, and a clear error for every bad file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from fastrag.exceptions import ConfigurationError, ParsingError
from fastrag.ingestion.sources import SourceFile, discover
from fastrag.ingestion.steps.parsing import (
    HtmlParser,
    MarkdownParser,
    Parser,
    RstParser,
    TextParser,
    document_id_of,
)
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import EventRecorder, ItemFailed, Pipeline, Policy


def discovered(root: Path, relative: str, data: bytes) -> SourceFile:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    (source,) = (f for f in discover(root) if f.relative_path == relative)
    assert source.state == "accepted", source.reason
    return source


def run(parser: Parser, raw: list[Document]) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    pipeline = Pipeline(parser(raw), policy=Policy(on_failure="skip"), listeners=[recorder])
    return pipeline.run_sync(), recorder


def only_failure(parser: Parser, raw: Document) -> ItemFailed:
    output, recorder = run(parser, [raw])
    assert output == []
    (failure,) = recorder.failures
    assert failure.error_type == "ParsingError"
    return failure


@pytest.mark.parametrize(
    ("parser", "name", "fmt"),
    [
        (TextParser(), "a.txt", ContentFormat.TEXT),
        (MarkdownParser(), "docs/a.md", ContentFormat.MARKDOWN),
        (RstParser(), "a.rst", ContentFormat.RST),
        (HtmlParser(), "a.html", ContentFormat.HTML),
    ],
)
def test_parsed_document_carries_the_agreed_metadata(
    tmp_path: Path, parser: Parser, name: str, fmt: ContentFormat
) -> None:
    data = b"Title\r\n\r\nBody\n"
    source = discovered(tmp_path, name, data)
    (parsed,), _ = run(parser, [source.to_document({"tenant": "acme"})])
    content = "Title\r\n\r\nBody\n"
    assert parsed.content == content
    assert parsed.id == hashlib.sha256(content.encode()).hexdigest()[:32] == document_id_of(content)
    assert parsed.source_id == name
    assert dict(parsed.metadata) == {
        "source": name,
        "source_type": fmt.value,
        "content_format": fmt,
        "parser_version": f"{type(parser).__name__}:1",
        "encoding": "utf-8",
        "parse_diagnostics": (),
        "relative_path": name,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "detected_by": "extension",
        "tenant": "acme",
    }


def test_identical_files_at_two_paths_share_the_document_id(tmp_path: Path) -> None:
    first = discovered(tmp_path, "a/x.md", b"# Same\n")
    second = discovered(tmp_path, "b/x.md", b"# Same\n")
    out, _ = run(MarkdownParser(), [first.to_document(), second.to_document()])
    assert out[0].id == out[1].id
    assert [d.metadata["source"] for d in out] == ["a/x.md", "b/x.md"]


def test_bom_and_replacements_are_diagnosed(tmp_path: Path) -> None:
    source = discovered(tmp_path, "b.md", b"\xef\xbb\xbf# T\n\nbad \xff byte\n")
    (parsed,), _ = run(MarkdownParser(), [source.to_document()])
    assert parsed.content == "# T\n\nbad \ufffd byte\n"
    assert parsed.metadata["parse_diagnostics"] == (
        "bom: removed a UTF-8 byte-order mark (3 bytes)",
        "undecodable: 1 byte(s) in 1 place(s) are not valid utf-8 and were replaced with "
        "U+FFFD; the first at byte offset 12",
    )


def test_legacy_8bit_text_is_read_as_cp1252_and_diagnosed(tmp_path: Path) -> None:
    # GNU ed's ChangeLog as Debian ships it: ISO-8859-1, no charset anywhere.
    data = (Path(__file__).parent / "data" / "ed_ChangeLog.latin1").read_bytes()
    source = discovered(tmp_path, "ChangeLog", data)
    (parsed,), _ = run(TextParser(), [source.to_document()])
    content = parsed.content
    assert parsed.metadata["encoding"] == "cp1252"
    assert "\ufffd" not in content and len(content) == len(data)
    assert "(Reported by Sören Tempel)." in content
    assert "(Both reported by Xosé Vázquez Pérez)." in content
    assert "Copyright (C) 1993 François Pinard" in content
    assert parsed.metadata["parse_diagnostics"] == (
        "encoding: no charset declared and not UTF-8 (6 byte(s) above 0x7F, no UTF-8 "
        "multi-byte sequence); decoded as cp1252 (windows-1252). If that is wrong, convert "
        "the file to UTF-8",
    )


def test_utf16_with_bom(tmp_path: Path) -> None:
    source = discovered(tmp_path, "w.txt", "\ufeffwide text".encode("utf-16-be"))
    (parsed,), _ = run(TextParser(), [source.to_document()])
    assert (parsed.content, parsed.metadata["encoding"]) == ("wide text", "utf-16-be")


def test_empty_file_parses_to_empty_content(tmp_path: Path) -> None:
    source = discovered(tmp_path, "empty.md", b"")
    (parsed,), _ = run(MarkdownParser(), [source.to_document()])
    assert (parsed.content, parsed.id) == ("", document_id_of(""))


def test_binary_tail_fails_at_parse(tmp_path: Path) -> None:
    # The first 8 KB are text, so discovery accepts it; the parser sees the NUL bytes.
    source = discovered(tmp_path, "late.md", b"# ok\n" * 2000 + b"\x00\x01" * 100)
    failure = only_failure(MarkdownParser(), source.to_document())
    assert failure.message.startswith("late.md: looks binary (a NUL byte at byte offset 10000")


@pytest.mark.parametrize(
    ("head", "encoding", "content", "note"),
    [
        (b'<meta charset="windows-1252">caf\xe9', "cp1252", "café", "charset: cp1252 from"),
        (
            b"<META http-equiv=Content-Type content='text/html; charset=ISO-8859-1'>\xe9",
            "cp1252",
            "é",
            "charset: cp1252 from",
        ),
        (b'<meta charset="utf-16">caf\xc3\xa9', "utf-8", "café", "declared without a BOM"),
        (b'<meta charset="klingon">caf\xc3\xa9', "utf-8", "café", "unknown charset 'klingon'"),
        (b"\xef\xbb\xbf<meta charset=latin1>caf\xc3\xa9", "utf-8", "café", "bom: removed"),
        # Nothing declared and no UTF-8 sequence at all: a legacy page, read as browsers do.
        (b"<p>caf\xe9 cr\xe8me</p><p>caf\xe9", "cp1252", "caf\xe9", "decoded as cp1252"),
        # Nothing declared, UTF-8 with one damaged byte: still UTF-8, the damage counted.
        (b"<p>caf\xc3\xa9 \xff</p>caf\xc3\xa9", "utf-8", "café", "undecodable"),
    ],
)
def test_html_charset_from_bom_then_meta_then_utf8(
    tmp_path: Path, head: bytes, encoding: str, content: str, note: str
) -> None:
    source = discovered(tmp_path, "p.html", head)
    (parsed,), _ = run(HtmlParser(), [source.to_document()])
    assert parsed.metadata["encoding"] == encoding
    assert parsed.content.endswith(content)
    assert parsed.metadata["content_format"] == ContentFormat.HTML
    assert any(note in d for d in parsed.metadata["parse_diagnostics"])


def test_html_content_is_the_original_html(tmp_path: Path) -> None:
    html = b"<!DOCTYPE html>\n<html><body><script>x()</script><p>Hi &amp; bye</p></body></html>"
    source = discovered(tmp_path, "saved.pdf", html)
    assert (source.source_type, source.detected_by) == ("html", "content")
    (parsed,), _ = run(HtmlParser(), [source.to_document()])
    assert parsed.content == html.decode()
    assert parsed.metadata["source_type"] == "html"


def test_file_deleted_between_discovery_and_parsing(tmp_path: Path) -> None:
    source = discovered(tmp_path, "gone.md", b"# soon gone\n")
    (tmp_path / "gone.md").unlink()
    failure = only_failure(MarkdownParser(), source.to_document())
    assert failure.message == (
        "gone.md: deleted between discovery and parsing; re-run to process the folder as it is now"
    )


def test_file_changed_between_discovery_and_parsing(tmp_path: Path) -> None:
    source = discovered(tmp_path, "edit.md", b"# v1\n")
    (tmp_path / "edit.md").write_bytes(b"# v2\n")
    failure = only_failure(MarkdownParser(), source.to_document())
    assert failure.message.startswith("edit.md: changed between discovery and parsing")


def test_file_replaced_by_a_fifo_or_directory_fails_without_blocking(tmp_path: Path) -> None:
    fifo = discovered(tmp_path, "pipe.md", b"text")
    folder = discovered(tmp_path, "dir.md", b"text")
    os.remove(tmp_path / "pipe.md")
    os.mkfifo(tmp_path / "pipe.md")
    os.remove(tmp_path / "dir.md")
    (tmp_path / "dir.md").mkdir()
    out, recorder = run(MarkdownParser(), [fifo.to_document(), folder.to_document()])
    assert out == []
    messages = sorted(f.message for f in recorder.failures)
    assert messages[0].startswith("dir.md: is no longer a regular file")
    assert messages[1].startswith("pipe.md: is no longer a regular file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file_fails_naming_it(tmp_path: Path) -> None:
    source = discovered(tmp_path, "locked.md", b"text")
    (tmp_path / "locked.md").chmod(0)
    try:
        failure = only_failure(MarkdownParser(), source.to_document())
    finally:
        (tmp_path / "locked.md").chmod(0o644)
    assert failure.message.startswith("locked.md: cannot be read (permission denied)")


def test_file_grown_past_the_cap_fails(tmp_path: Path) -> None:
    source = discovered(tmp_path, "grow.txt", b"x" * 10)
    failure = only_failure(TextParser(max_bytes=5), source.to_document())
    assert failure.message.startswith("grow.txt: larger than the parser's 5-byte cap")


def test_a_document_without_a_path_is_rejected_before_work() -> None:
    failure = only_failure(TextParser(), Document("x", "x.txt", "already text"))
    assert "its metadata has no 'path'" in failure.message
    with pytest.raises(ConfigurationError, match="'max_bytes' must be an int > 0"):
        TextParser(max_bytes=0)


def test_errors_never_quote_document_text(tmp_path: Path) -> None:
    source = discovered(tmp_path, "s.md", b"# clean\n")
    secret = b"TOP-SECRET-PAYLOAD " * 10
    for data in (secret + b"\x00" * 3, secret + bytes(range(0x80, 0x100)) * 8):
        with pytest.raises(ParsingError) as caught:
            MarkdownParser().parse(data, source.to_document())
        assert str(caught.value).startswith("s.md: looks binary")
        assert "TOP-SECRET" not in str(caught.value)
