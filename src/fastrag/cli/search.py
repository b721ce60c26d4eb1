"""``fastrag search "query" --store milvus:PATH --tenant T``: the top-k chunks a tenant may see.

The query is embedded with the same local model ``fastrag ingest --store`` used (the
bundled all-MiniLM-L6-v2 unless ``--embedding-model`` says otherwise); every stored
chunk carries the identity of the model that embedded it (``metadata.embedding_model``),
and a hit embedded by another model is an error, not a silently meaningless score. The
tenant (and ``--acl`` groups) filter runs inside the Milvus query, before ranking.
``--tenant ''`` searches the chunks stored without a tenant.

The collection says how to rank (no flag needed). A dense one (the default of
``fastrag ingest --store``) ranks by the chunk's vector. A hybrid one (``fastrag ingest
--store ... --retrieval hybrid``) fuses two rankings of 64 candidates each — a dense one
by the mean of the query's cosines with the chunk, its context window and its best
sentence, and BM25 over the chunks' context windows for the query's words — by
reciprocal rank fusion (constant 60), the tenant/ACL filter inside every search, then
skips near-duplicates of better hits (``--no-dedupe`` keeps them);
the score printed is then the fused RRF score. See ``MilvusStore.hybrid_search``.

Each hit prints its source, page, section, offsets and score (a table on a terminal,
tab-separated lines otherwise; ``--json``: one JSON object per hit, full text). With
``--expand-sections`` each hit also gets the sections it was cut from and the sections
enclosing them, with their exact text (``SectionStore.resolve``, the same answer as
``SectionIndex.resolve`` in the ingesting process), read from the section file ingest
wrote beside its manifest (``--sections <output>.sections.sqlite``): the store alone
does not know where the manifest of the run that filled it lives. In the tab-separated
form a section is a header line (``    section TITLE [start:end]``) followed by its
text, each line prefixed by ``    | ``.

A Milvus server's token is read from ``$FASTRAG_MILVUS_TOKEN`` (see ``fastrag ingest``).

Exit status: 0 with at least one hit, 1 when nothing matched or on an error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError, ValidationError

if TYPE_CHECKING:
    from fastrag.ingestion.steps.storing import SearchHit
    from fastrag.retrieval import ResolvedSection
    from fastrag.retrieval.section_store import SectionStore

__all__ = ["HELP", "NAME", "configure", "run"]

NAME: Final = "search"
HELP: Final = "search a vector store built by 'fastrag ingest --store' as one tenant"

EXIT_OK: Final = 0
EXIT_NOTHING: Final = 1
_PREVIEW: Final = 100
"""Characters of a hit's text shown (one line); the full text is in the store."""
_TEXT_PREFIX: Final = "    | "


def _k(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= 1000:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to 1000 (got {value!r})")
    return number


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's arguments."""
    parser.add_argument("query", help="the question or keywords to search for")
    parser.add_argument(
        "--store",
        required=True,
        metavar="milvus:PATH.db|milvus:URI",
        help="the store 'fastrag ingest --store' wrote (a secured server's token is read "
        "from $FASTRAG_MILVUS_TOKEN)",
    )
    parser.add_argument(
        "--tenant",
        required=True,
        metavar="T",
        help="only chunks of this tenant ('' for chunks stored without one)",
    )
    parser.add_argument(
        "--acl",
        default=None,
        metavar="GROUP[,GROUP...]",
        help="the caller's groups: only chunks whose ACL shares one are returned",
    )
    parser.add_argument("--k", type=_k, default=5, metavar="N", help="hits to return (default 5)")
    parser.add_argument(
        "--no-dedupe",
        dest="dedupe",
        action="store_false",
        help="on a hybrid store (ingest --retrieval hybrid): keep hits that are "
        "near-duplicates of better ones (by default a hit sharing >= 80 %% of its word "
        "trigrams with a better hit is skipped and the next one taken)",
    )
    parser.add_argument(
        "--expand-sections",
        action="store_true",
        help="show the source sections of each hit, with their text (needs --sections)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per hit (full text; sections with --expand-sections)",
    )
    parser.add_argument(
        "--sections",
        type=Path,
        default=None,
        metavar="PATH",
        help="the section file ingest wrote beside its manifest (<output>.sections.sqlite)",
    )
    parser.add_argument(
        "--embedding-model",
        default=None,
        metavar="DIR",
        help="the local sentence-transformers model the store was built with "
        "(default: the bundled all-MiniLM-L6-v2)",
    )


def _groups(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [group.strip() for group in value.split(",") if group.strip()]


def search(arguments: argparse.Namespace) -> list[SearchHit]:
    """Embed the query and run the filtered search (hybrid on a hybrid collection);
    checks the hits' embedding model."""
    import asyncio

    from fastrag.ingestion._job_index import build_embedder, open_store
    from fastrag.ingestion.steps.embedding import EMBEDDING_MODEL_KEY

    embedder = build_embedder(arguments.embedding_model, 1)
    with open_store(arguments.store) as store:
        if store.count() == 0:
            return []
        vector = asyncio.run(embedder.aembed_texts([arguments.query]))[0]
        if store.retrieval == "hybrid" and arguments.query.strip():
            hits = store.hybrid_search(
                vector,
                arguments.query,
                arguments.k,
                tenant=arguments.tenant,
                acl=_groups(arguments.acl),
                dedupe=arguments.dedupe,
            )
        else:
            hits = store.search(
                vector, arguments.k, tenant=arguments.tenant, acl=_groups(arguments.acl)
            )
    identity = embedder.identity
    for hit in hits:
        built_with = hit.metadata.get(EMBEDDING_MODEL_KEY)
        if built_with != identity:
            raise ConfigurationError(
                f"chunk {hit.chunk_id!r} of {hit.source!r} was embedded by {built_with!r}, "
                f"not by the query's model {identity!r}; search with the model the store "
                "was built with (--embedding-model DIR) or re-ingest"
            )
    return hits


_Expansion = tuple["tuple[ResolvedSection, ...]", str]
"""A hit's sections, or why it has none ("" when it has them)."""


def _sections(hit: SearchHit, sections: SectionStore) -> _Expansion:
    from fastrag.models import Document

    parent = Document(hit.chunk_id, hit.source, hit.text, dict(hit.metadata))
    try:
        return sections.resolve(parent), ""
    except ValidationError:
        return (), "not a structural chunk: it records no sections"
    except KeyError as error:
        return (), str(error.args[0]) if error.args else "no sections stored"


def _title(section: ResolvedSection) -> str:
    if section.heading_path:
        return " > ".join(section.heading_path)
    return "(preamble)" if section.kind == "preamble" else "(untitled)"


def _expansion_lines(expansion: _Expansion) -> list[str]:
    found, why = expansion
    if why:
        return [f"    sections unavailable: {why}"]
    lines: list[str] = []
    for section in found:
        lines.append(f"    section {_title(section)} [{section.char_start}:{section.char_end}]")
        lines.extend(_TEXT_PREFIX + line for line in section.content.split("\n"))
    return lines


def _json_line(rank: int, hit: SearchHit, expansion: _Expansion | None) -> str:
    value: dict[str, Any] = {
        "rank": rank,
        "score": hit.score,
        "chunk_id": hit.chunk_id,
        "source": hit.source,
        "page": hit.page,
        "section": hit.section,
        "char_start": hit.char_start,
        "char_end": hit.char_end,
        "text": hit.text,
    }
    if expansion is not None:
        found, why = expansion
        value["sections"] = [
            {
                "section_id": s.section_id,
                "kind": s.kind,
                "heading_path": list(s.heading_path),
                "level": s.level,
                "char_start": s.char_start,
                "char_end": s.char_end,
                "content": s.content,
            }
            for s in found
        ]
        if why:
            value["sections_unavailable"] = why
    return json.dumps(value, ensure_ascii=False)


def _rows(hits: Sequence[SearchHit]) -> list[tuple[str, ...]]:
    return [
        (
            str(rank),
            f"{hit.score:.4f}",
            hit.source,
            "" if hit.page is None else str(hit.page),
            hit.section,
            f"{hit.char_start}:{hit.char_end}",
            " ".join(hit.text.split())[:_PREVIEW],
        )
        for rank, hit in enumerate(hits, 1)
    ]


def run(arguments: argparse.Namespace) -> int:
    """Search and print the hits; see the exit statuses."""
    if arguments.expand_sections and arguments.sections is None:
        raise ConfigurationError(
            "--expand-sections needs --sections PATH: the <output>.sections.sqlite file "
            "'fastrag ingest --store' wrote beside its manifest"
        )
    if arguments.sections is not None and not arguments.sections.is_file():
        raise ConfigurationError(
            f"--sections {str(arguments.sections)!r} does not exist; pass the "
            "<output>.sections.sqlite file 'fastrag ingest --store' wrote"
        )
    hits = search(arguments)
    console_module = require("rich.console", extra="cli", feature="fastrag search output")
    console: Any = console_module.Console()
    headers = ("#", "score", "source", "page", "section", "offsets", "text")
    expansions: list[_Expansion | None] = [None for _ in hits]
    if arguments.expand_sections:
        from fastrag.retrieval.section_store import SectionStore

        with SectionStore(arguments.sections) as sections:
            expansions = [_sections(hit, sections) for hit in hits]
    if arguments.json:
        for rank, (hit, expansion) in enumerate(zip(hits, expansions, strict=True), 1):
            print(_json_line(rank, hit, expansion))
    elif console.is_terminal and not arguments.expand_sections:
        table_module = require("rich.table", extra="cli", feature="fastrag search output")
        table = table_module.Table(*headers)
        for row in _rows(hits):
            table.add_row(*row)
        console.print(table)
    else:
        print("\t".join(headers))
        for row, expansion in zip(_rows(hits), expansions, strict=True):
            print("\t".join(row))
            for line in [] if expansion is None else _expansion_lines(expansion):
                print(line)
    summary = f"fastrag search: {len(hits)} hits for tenant {arguments.tenant!r}"
    # JSON lines stay parseable: the summary goes to stderr there.
    print(summary, file=sys.stderr if arguments.json else sys.stdout)
    return EXIT_OK if hits else EXIT_NOTHING
