"""The fastrag cell: ``StructureAwareChunker`` beside the anchor libraries, same protocol.

Written for this project (not part of the copied harness). The timed part includes
normalization: each text becomes a ``Document`` with its ``content_format`` and goes
through ``StructureAwareChunker.split`` — parse, normalize, pack — exactly what a pipeline
pays per document, minus the pipeline's cache and events (``cache=False``) and minus the
independent ``validate_output`` pass; the ``fastrag-validated`` cell adds that pass.

Output checks differ from the generic ``quality()`` in two ways, both dictated by the
chunk contract (``fastrag.packing.contract``):

* the budget is checked on ``build_embedding_text(content, metadata)`` — the exact text
  that is embedded, heading path included — and, for comparison with libraries that embed
  bare chunk text, on ``content`` alone;
* offsets are checked through ``metadata["serialization_map"]``: a chunk's display text is
  a readable serialization (for HTML never equal to the markup slice), so a chunk is
  *exact* when every verbatim run (``source``, ``context``, ``overlap``) equals the source
  slice it names and every ``source`` run lies inside ``[char_start, char_end)``. The naive
  ``content == source[char_start:char_end]`` comparison is reported too, honestly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from common import BUDGET

FORMAT_OF = {"md": "markdown", "html": "html", "rst": "rst", "txt": "text"}
TARGET_TOKENS = 400
"""Packing target below the 512 hard maximum: room to merge small sibling sections."""

VERBATIM_KINDS = frozenset({"source", "context", "overlap"})

Record = tuple[str, int | None, int | None, str | None]
Output = list[list[tuple[str, Mapping[str, Any]]]]


class Fastrag:
    """``StructureAwareChunker(max_tokens=512, target_tokens=400, cache=False)``."""

    offsets = "char (+ serialization map)"
    headings = "yes (heading_path)"
    note = f"target {TARGET_TOKENS}, incl. normalization"

    def __init__(self, fmt: str, enc: Any) -> None:
        self.fmt = fmt
        self.enc = enc
        self.content_format = FORMAT_OF[fmt]

    def setup(self) -> None:
        """A fresh chunker per timed run: nothing (trees, counts) survives between runs."""
        from fastrag.ingestion.steps.chunking import (
            StructureAwareChunker,
            TiktokenTokenizer,
        )

        self.chunker = StructureAwareChunker(
            tokenizer=TiktokenTokenizer("cl100k_base"),
            max_tokens=BUDGET,
            target_tokens=TARGET_TOKENS,
            cache=False,
        )

    def run(self, texts: Sequence[str]) -> Output:
        from fastrag.models import Document

        split = self.chunker.split
        metadata = {"content_format": self.content_format}
        out: Output = []
        for index, text in enumerate(texts):
            document = Document(f"bench-{self.fmt}-{index}", "bench", text, metadata)
            out.append([_pair(piece) for piece in split(document)])
        return out

    def records(self, out: Output, texts: Sequence[str]) -> list[list[Record]]:
        return [
            [
                (
                    content,
                    meta.get("char_start"),
                    meta.get("char_end"),
                    " > ".join(meta.get("heading_path", ())) or None,
                )
                for content, meta in pieces
            ]
            for pieces in out
        ]

    def quality(self, out: Output, texts: Sequence[str]) -> dict[str, Any]:
        """Contract checks of the warm-up output (see the module docstring)."""
        from fastrag.ingestion.steps.chunking import build_embedding_text

        encode = self.enc.encode_ordinary
        q: dict[str, Any] = {
            "chunks": 0, "over_budget": 0, "max_tokens": 0, "mean_tokens": 0.0,
            "over_budget_content": 0, "max_tokens_content": 0,
            "count_mismatch": 0, "overflow_flagged": 0, "atomic_loss": 0,
            "empty_chunks": 0, "chunks_with_offsets": 0, "offsets_exact": 0,
            "offsets_exact_naive": 0, "map_broken": 0, "chunks_with_heading": 0,
            "chars_rendered": 0, "chars_verbatim": 0,
        }
        total = chars_out = 0
        for pieces, source in zip(out, texts, strict=True):
            for content, meta in pieces:
                q["chunks"] += 1
                embedded = len(encode(build_embedding_text(content, meta)))
                plain = len(encode(content))
                total += embedded
                chars_out += len(content)
                q["max_tokens"] = max(q["max_tokens"], embedded)
                q["max_tokens_content"] = max(q["max_tokens_content"], plain)
                q["over_budget"] += embedded > BUDGET
                q["over_budget_content"] += plain > BUDGET
                q["count_mismatch"] += meta.get("embedding_token_count") != embedded
                q["overflow_flagged"] += bool(meta.get("overflow"))
                q["atomic_loss"] += bool(meta.get("atomic_structure_loss"))
                q["empty_chunks"] += not content.strip()
                q["chunks_with_heading"] += bool(meta.get("heading_path"))
                start, end = meta.get("char_start"), meta.get("char_end")
                if start is None or end is None:
                    continue
                q["chunks_with_offsets"] += 1
                q["offsets_exact_naive"] += source[start:end] == content
                exact, verbatim, rendered = _map_exact(content, source, start, end, meta)
                q["offsets_exact"] += exact
                q["map_broken"] += not exact
                q["chars_verbatim"] += verbatim
                q["chars_rendered"] += rendered
        q["mean_tokens"] = round(total / q["chunks"], 1) if q["chunks"] else 0
        q["chars_out_over_in"] = round(chars_out / max(1, sum(len(t) for t in texts)), 4)
        return q


def _pair(piece: object) -> tuple[str, Mapping[str, Any]]:
    if isinstance(piece, str):
        return piece, {}
    content, meta = piece
    return content, meta


def _map_exact(
    content: str, source: str, start: int, end: int, meta: Mapping[str, Any]
) -> tuple[bool, int, int]:
    """(every verbatim run matches and the map tiles ``content``, verbatim chars, rendered)."""
    runs: Iterable[Sequence[Any]] = meta.get("serialization_map", ())
    cursor = verbatim = rendered = 0
    ok = True
    for d_start, d_end, s_start, s_end, kind in runs:
        ok &= d_start == cursor and d_end >= d_start
        cursor = d_end
        if kind in VERBATIM_KINDS:
            ok &= content[d_start:d_end] == source[s_start:s_end]
            verbatim += d_end - d_start
            if kind == "source":
                ok &= start <= s_start and s_end <= end
        elif kind == "rendered":
            rendered += d_end - d_start
            ok &= start <= s_start <= s_end <= end
    ok &= cursor == len(content)
    return ok, verbatim, rendered


class FastragValidated(Fastrag):
    """Same, plus ``validate_structure_chunks`` on every document (what a pipeline runs)."""

    note = f"target {TARGET_TOKENS}, incl. normalization + validation"

    def run(self, texts: Sequence[str]) -> Output:
        from fastrag.ingestion.steps.chunking import validate_structure_chunks
        from fastrag.models import Document

        chunker = self.chunker
        metadata = {"content_format": self.content_format}
        out: Output = []
        for index, text in enumerate(texts):
            document = Document(f"bench-{self.fmt}-{index}", "bench", text, metadata)
            normalized = chunker.normalizers.normalize(document)
            pieces = [_pair(piece) for piece in chunker.split_normalized(normalized)]
            validate_structure_chunks(normalized, pieces, chunker.tokenizer, BUDGET)
            out.append(pieces)
        return out
