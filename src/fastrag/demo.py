"""``make demo``: chunk a folder of real documents and print what came out.

A small, honest tour of the library as it stands: files are read by extension into
``Document``s with an explicit ``content_format``, run through a lazily composed
pipeline (router → chunkers) with a progress bar fed by pipeline events, and summarised
per file with exact cl100k token counts. ``fastrag ingest`` (a later issue) replaces the
file reading here with discovery, sniffing, parsing and a JSONL contract.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from fastrag.exceptions import FastragError
from fastrag.ingestion.filters import ContentFormatFilter
from fastrag.ingestion.steps.chunking import (
    ChunkerRouter,
    HeadingChunker,
    RecursiveCharacterTextSplitter,
    TiktokenTokenizer,
)
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import (
    Event,
    InMemoryCacheStore,
    ItemCompleted,
    ItemFailed,
    IterableSource,
    Pipeline,
    Policy,
)

__all__ = ["main"]

FORMAT_BY_SUFFIX = {
    ".md": ContentFormat.MARKDOWN,
    ".markdown": ContentFormat.MARKDOWN,
    ".rst": ContentFormat.RST,
    ".html": ContentFormat.HTML,
    ".htm": ContentFormat.HTML,
    ".txt": ContentFormat.TEXT,
}


def _read_documents(root: Path) -> list[Document]:
    documents = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        content_format = FORMAT_BY_SUFFIX.get(path.suffix.lower())
        if content_format is None:
            continue
        content = path.read_bytes().decode("utf-8-sig", errors="replace")
        digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        documents.append(
            Document(
                digest,
                path.relative_to(root).as_posix(),
                content,
                {"content_format": content_format, "source": path.relative_to(root).as_posix()},
            )
        )
    return documents


def _chunker() -> ChunkerRouter:
    # Markdown keeps whole sections with their heading path; everything else is split
    # on the paragraph/line/word hierarchy.
    return (
        ChunkerRouter(cache=InMemoryCacheStore())
        .route(ContentFormatFilter(include_formats=["markdown"]), HeadingChunker())
        .default(RecursiveCharacterTextSplitter(chunk_size=1500, chunk_overlap=0))
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="folder of .md/.rst/.html/.txt documents")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        print(f"error: {args.folder} is not a folder of documents", file=sys.stderr)
        return 2

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console()
    documents = _read_documents(args.folder)
    failures: list[ItemFailed] = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("Chunking", total=len(documents))

        def on_event(event: Event) -> None:
            if isinstance(event, ItemFailed):
                failures.append(event)
            if isinstance(event, ItemCompleted | ItemFailed):
                progress.advance(task)

        pipeline = Pipeline(
            _chunker()(IterableSource(documents)),
            policy=Policy(on_failure="skip"),
            listeners=[on_event],
        )
        try:
            chunks = pipeline.run_sync()
        except FastragError as error:
            console.print(f"[red]error:[/red] {error}")
            return 1

    tokenizer = TiktokenTokenizer("cl100k_base")
    by_parent: dict[str, list[Document]] = defaultdict(list)
    for chunk in chunks:
        by_parent[chunk.metadata["parent_id"]].append(chunk)
    table = Table(title=f"fastrag demo: {args.folder}")
    for column in ("file", "format", "chars", "chunks", "tokens p50", "tokens max"):
        table.add_column(column, justify="left" if column in ("file", "format") else "right")
    formats: Counter[str] = Counter()
    for document in documents:
        counts = [tokenizer.count(c.content) for c in by_parent.get(document.id, [])]
        formats[document.content_format] += 1
        table.add_row(
            document.source_id,
            document.content_format,
            f"{len(document.content):,}",
            str(len(counts)),
            str(int(statistics.median(counts))) if counts else "-",
            str(max(counts)) if counts else "-",
        )
    console.print(table)
    summary = ", ".join(f"{n} {fmt}" for fmt, n in sorted(formats.items()))
    console.print(
        f"{len(documents)} documents ({summary}) → {len(chunks)} chunks; {len(failures)} failed"
    )
    for failure in failures:
        console.print(f"[red]failed[/red] {failure.item_id}: {failure.message}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
