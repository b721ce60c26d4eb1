"""Discovery: deterministic order, caps, globs, symlinks, sidecars — every file a verdict."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from fastrag.exceptions import ConfigurationError, ParsingError, PipelineError
from fastrag.ingestion._glob import compile_globs
from fastrag.ingestion.sources import SourceFile, discover, load_sidecar, raw_documents
from tests._paths import CORPUS

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")


def write(root: Path, relative: str, data: bytes | str = "text\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def by_path(files: tuple[SourceFile, ...]) -> dict[str, SourceFile]:
    return {f.relative_path: f for f in files}


def test_files_come_sorted_by_relative_posix_path(tmp_path: Path) -> None:
    for name in ["b.md", "a/z.md", "a/b/c.txt", "A.md", "a.md"]:
        write(tmp_path, name)
    files = discover(tmp_path)
    assert [f.relative_path for f in files] == ["A.md", "a.md", "a/b/c.txt", "a/z.md", "b.md"]
    assert all(f.state == "accepted" for f in files)


def test_accepted_file_carries_the_agreed_raw_metadata(tmp_path: Path) -> None:
    path = write(tmp_path, "docs/guide.rst", "Title\n=====\n")
    (source,) = discover(tmp_path)
    document = source.to_document({"tenant": "acme"})
    assert (document.id, document.source_id, document.content) == (
        "docs/guide.rst",
        "docs/guide.rst",
        "",
    )
    assert dict(document.metadata) == {
        "path": str(path.resolve()),
        "relative_path": "docs/guide.rst",
        "size": 12,
        "sha256": hashlib.sha256(b"Title\n=====\n").hexdigest(),
        "source_type": "rst",
        "detected_by": "extension",
        "tenant": "acme",
    }


def test_hidden_paths_are_outside_the_selection_unless_asked(tmp_path: Path) -> None:
    write(tmp_path, "visible.md")
    write(tmp_path, ".hidden.md")
    write(tmp_path, ".git/config.txt")
    write(tmp_path, "docs/.draft/notes.md")
    assert [f.relative_path for f in discover(tmp_path)] == ["visible.md"]
    shown = [f.relative_path for f in discover(tmp_path, skip_hidden=False)]
    assert shown == [".git/config.txt", ".hidden.md", "docs/.draft/notes.md", "visible.md"]


def test_include_and_exclude_globs_with_double_star(tmp_path: Path) -> None:
    for name in ["top.md", "docs/a.md", "docs/deep/b.md", "docs/deep/c.txt", "build/x.md"]:
        write(tmp_path, name)
    names = lambda **kw: [f.relative_path for f in discover(tmp_path, **kw)]  # noqa: E731
    assert names(include=["*.md"]) == ["build/x.md", "docs/a.md", "docs/deep/b.md", "top.md"]
    assert names(include=["docs/**/*.md"]) == ["docs/a.md", "docs/deep/b.md"]
    assert names(include=["docs/*.md"]) == ["docs/a.md"]
    assert names(exclude=["build/"]) == [
        "docs/a.md",
        "docs/deep/b.md",
        "docs/deep/c.txt",
        "top.md",
    ]
    assert names(include=["**/*.md"], exclude=["build", "**/deep/**"]) == ["docs/a.md", "top.md"]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.md", "a/b/c.md", True),
        ("docs/*.md", "docs/a/b.md", False),
        ("docs/**/b.md", "docs/b.md", True),
        ("docs/**", "docs/x/y", True),
        ("**", "any/thing", True),
        ("a?.txt", "ab.txt", True),
        ("a?.txt", "a/.txt", False),
        ("[!x]*.md", "y.md", True),
        ("[!x]*.md", "x.md", False),
        ("./docs/a.md", "docs/a.md", True),
        ("a.md", "xa.md", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    (glob,) = compile_globs("include", [pattern])
    assert glob.matches(path) is matches


def test_glob_options_are_validated() -> None:
    with pytest.raises(ConfigurationError, match="single string"):
        compile_globs("include", "*.md")
    with pytest.raises(ConfigurationError, match="non-empty glob"):
        compile_globs("exclude", [""])


def test_file_over_the_size_cap_is_skipped_naming_size_and_cap(tmp_path: Path) -> None:
    write(tmp_path, "big.txt", "x" * 2000)
    write(tmp_path, "small.txt", "x" * 10)
    files = by_path(discover(tmp_path, max_file_bytes=1000))
    assert files["small.txt"].state == "accepted"
    big = files["big.txt"]
    assert (big.state, big.size, big.sha256) == ("skipped", 2000, None)
    assert big.reason.startswith("big.txt: 2000 bytes, over the 1000-byte cap")
    assert "max_file_bytes" in big.reason


def test_files_beyond_max_files_are_skipped_never_dropped(tmp_path: Path) -> None:
    for index in range(5):
        write(tmp_path, f"f{index}.txt")
    files = discover(tmp_path, max_files=3)
    assert [f.state for f in files] == ["accepted"] * 3 + ["skipped"] * 2
    assert files[3].reason == (
        "f3.txt: beyond the first 3 files (max_files); raise max_files (--max-files) or "
        "narrow the selection with include/exclude globs"
    )


def test_symlink_leaving_the_root_is_skipped(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", "secret.txt", "secret")
    root = tmp_path / "root"
    write(root, "ok.md")
    (root / "leak.txt").symlink_to(outside)
    (root / "leakdir").symlink_to(outside.parent, target_is_directory=True)
    files = by_path(discover(root))
    for name in ("leak.txt", "leakdir"):
        assert files[name].state == "skipped"
        assert files[name].reason.startswith(f"{name}: a symbolic link to ")
        assert "outside the input root" in files[name].reason
        assert files[name].sha256 is None  # the target was never read


def test_symlinks_inside_the_root_are_followed(tmp_path: Path) -> None:
    target = write(tmp_path, "real/doc.md", "# Doc\n")
    (tmp_path / "alias.md").symlink_to(target)
    (tmp_path / "mirror").symlink_to(tmp_path / "real", target_is_directory=True)
    files = by_path(discover(tmp_path))
    assert {name: f.state for name, f in files.items()} == {
        "alias.md": "accepted",
        "mirror/doc.md": "accepted",
        "real/doc.md": "accepted",
    }
    assert files["alias.md"].path == target.resolve()
    assert len({f.sha256 for f in files.values()}) == 1
    assert [f.state for f in discover(tmp_path, follow_symlinks=False)] == [
        "skipped",
        "skipped",
        "accepted",
    ]


def test_symlink_loops_are_reported_not_followed(tmp_path: Path) -> None:
    write(tmp_path, "sub/doc.md")
    (tmp_path / "sub" / "up").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "a.txt").symlink_to(tmp_path / "b.txt")
    (tmp_path / "b.txt").symlink_to(tmp_path / "a.txt")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "missing.md")
    files = by_path(discover(tmp_path))
    assert files["sub/doc.md"].state == "accepted"
    assert "symbolic link loop" in files["sub/up"].reason
    assert "symbolic link loop" in files["a.txt"].reason
    assert "broken symbolic link" in files["dangling.md"].reason
    assert {f.state for name, f in files.items() if name != "sub/doc.md"} == {"skipped"}


def test_fifo_is_skipped_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    (fifo,) = discover(tmp_path)
    assert fifo.state == "skipped"
    assert fifo.reason == (
        "pipe.txt: not a regular file (a FIFO, socket or device); only regular files are read"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file_fails_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path, "locked.md")
    path.chmod(0)
    try:
        (locked,) = discover(tmp_path)
    finally:
        path.chmod(0o644)
    assert locked.state == "failed"
    assert locked.reason.startswith("locked.md: cannot read it: permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists directories whatever their permissions")
def test_unlistable_directory_fails_naming_it(tmp_path: Path) -> None:
    write(tmp_path, "closed/doc.md")
    (tmp_path / "closed").chmod(0)
    try:
        (closed,) = discover(tmp_path)
    finally:
        (tmp_path / "closed").chmod(0o755)
    assert closed.state == "failed"
    assert "cannot list directory 'closed/'" in closed.reason


def test_binary_text_pdf_as_html_and_empty(tmp_path: Path) -> None:
    write(tmp_path, "garbage.md", b"\x00\x01\x02binary\xff" * 20)
    write(tmp_path, "page.pdf", b"<!DOCTYPE html><html><body>saved</body></html>")
    write(tmp_path, "empty.txt", b"")
    files = by_path(discover(tmp_path))
    assert files["garbage.md"].state == "skipped"
    assert files["garbage.md"].reason.startswith("garbage.md: content looks binary")
    assert (files["page.pdf"].state, files["page.pdf"].source_type) == ("accepted", "html")
    assert files["page.pdf"].detected_by == "content"
    assert (files["empty.txt"].state, files["empty.txt"].size) == ("accepted", 0)


@needs_corpus
def test_real_pdf_and_docx_are_recognised_and_skipped_with_the_truth(tmp_path: Path) -> None:
    shutil.copy(CORPUS / "pdf" / "multicolumn.pdf", tmp_path / "paper.pdf")
    shutil.copy(CORPUS / "office" / "word_sample.docx", tmp_path / "letter.docx")
    files = by_path(discover(tmp_path, parsable_types={"text", "markdown"}))
    for name, kind in (("paper.pdf", "pdf"), ("letter.docx", "docx")):
        assert (files[name].state, files[name].source_type) == ("skipped", kind)
        assert f"no {kind} parser is available in this version of fastrag-ai" in (
            files[name].reason
        )
    accepting = by_path(discover(tmp_path, parsable_types=None))
    assert {f.state for f in accepting.values()} == {"accepted"}


def test_format_overrides_apply_before_sniffing(tmp_path: Path) -> None:
    write(tmp_path, "docs/guide.txt", "Title\n=====\n")
    write(tmp_path, "notes.txt", "plain")
    write(tmp_path, "script.py", "print(1)\n")
    write(tmp_path, "blob.txt", b"\x00" * 64)
    files = by_path(discover(tmp_path, format_overrides=[("docs/**/*.txt", "rst")]))
    assert (files["docs/guide.txt"].source_type, files["docs/guide.txt"].detected_by) == (
        "rst",
        "override",
    )
    assert files["notes.txt"].source_type == "text"
    everything = by_path(discover(tmp_path, format_overrides="markdown"))
    assert everything["script.py"].source_type == "markdown"
    assert everything["blob.txt"].state == "skipped"
    assert "despite the format override markdown" in everything["blob.txt"].reason
    with pytest.raises(ConfigurationError, match="unknown format 'word'"):
        discover(tmp_path, format_overrides=[("*.txt", "word")])


def test_sidecar_metadata_is_attached_and_frozen(tmp_path: Path) -> None:
    write(tmp_path, "a.md")
    write(tmp_path, "a.md.meta.json", json.dumps({"tenant": "acme", "acl": ["g:eng", "g:ops"]}))
    (source,) = discover(tmp_path, include=["*.md"])
    assert source.sidecar == "a.md.meta.json"
    assert dict(source.metadata) == {"tenant": "acme", "acl": ("g:eng", "g:ops")}
    document = source.to_document({"tenant": "default", "retention": "1y"})
    assert (document.metadata["tenant"], document.metadata["retention"]) == ("acme", "1y")
    assert list(document.metadata)[-3:] == ["acl", "retention", "tenant"]


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        (b"{bad", "is not valid JSON"),
        (b"[1, 2]", "holds a JSON list, not an object"),
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b'{"source": "forged.md"}', "sets the reserved key 'source'"),
        (b'{"x": NaN}', "is not valid JSON"),
        (b"\xff\xfe{}", "is not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_invalid_sidecar_quarantines_its_document(
    tmp_path: Path, payload: bytes, fragment: str
) -> None:
    write(tmp_path, "doc.md")
    write(tmp_path, "doc.md.meta.json", payload)
    (source,) = discover(tmp_path)
    assert source.state == "quarantined"
    assert source.reason.startswith("doc.md: metadata sidecar 'doc.md.meta.json'")
    assert fragment in source.reason


def test_oversized_sidecar_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "x.meta.json", json.dumps({"k": "v" * 100}))
    with pytest.raises(ParsingError, match="larger than the 10-byte cap"):
        load_sidecar(path, max_bytes=10)


def test_orphan_sidecar_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "gone.md.meta.json", "{}")
    (orphan,) = discover(tmp_path)
    assert orphan.state == "skipped"
    assert "a metadata sidecar for 'gone.md', which is not a discovered document" in (orphan.reason)


def test_only_accepted_files_become_raw_documents(tmp_path: Path) -> None:
    write(tmp_path, "a.md")
    write(tmp_path, "b.bin", b"\x00\x01")
    files = discover(tmp_path)
    assert [d.id for d in raw_documents(files, {"tenant": "t"})] == ["a.md"]
    with pytest.raises(PipelineError, match=r"'b\.bin' was skipped at discovery"):
        files[1].to_document()
    with pytest.raises(ConfigurationError, match="reserved key 'sha256'"):
        files[0].to_document({"sha256": "forged"})


def test_discovery_options_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not an existing directory"):
        discover(tmp_path / "missing")
    with pytest.raises(ConfigurationError, match="'max_files' must be an int > 0"):
        discover(tmp_path, max_files=0)
    with pytest.raises(ConfigurationError, match="'max_file_bytes' must be an int > 0"):
        discover(tmp_path, max_file_bytes=-1)


def test_discovery_is_deterministic(tmp_path: Path) -> None:
    for index in range(20):
        write(tmp_path, f"d{index % 3}/f{index}.md", f"# {index}\n")
    assert discover(tmp_path) == discover(tmp_path)
