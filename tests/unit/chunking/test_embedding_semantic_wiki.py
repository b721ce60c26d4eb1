"""``EmbeddingSemanticChunker`` on the corpus's wiki.md with the real local MiniLM.

With the seed's default ``sentence_split_regex``, sentences ending in citation markers
(``... 1911.[23] The ...``) are not split, so a window of three "sentences" is ~500 word
pieces, over all-MiniLM-L6-v2's 256. The document used to be refused; now the windows are
fitted (re-split at those sentence-like ends, narrowed if needed) and the chunks are
still the document's exact slices. The ``Embedder`` step refuses any text over the limit
before calling the model, so a successful run proves every embedded window fit.
"""

from __future__ import annotations

import re

import pytest

from fastrag.ingestion.steps.chunking._semantic_sentences import sentences
from fastrag.ingestion.steps.chunking.embedding_semantic import EmbeddingSemanticChunker
from fastrag.ingestion.steps.embedding import SentenceTransformerEmbedder
from fastrag.models import Document
from tests._paths import CORPUS

pytest.importorskip("sentence_transformers", reason="needs fastrag-ai[embeddings]")

WIKI = (CORPUS / "web" / "wiki.md").read_text(encoding="utf-8")
DEFAULT = r"(?<=[.?!])\s+"


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


def _document() -> Document:
    return Document("wiki", "wiki.md", WIKI, {"content_format": "markdown"})


def test_wiki_windows_exceed_the_model_with_the_default_regex(
    embedder: SentenceTransformerEmbedder,
) -> None:
    spans = sentences(WIKI, re.compile(DEFAULT))
    texts = [WIKI[s.start : s.core_end] for s in spans]
    windows = [" ".join(texts[max(0, i - 1) : i + 2]) for i in range(len(texts))]
    assert embedder.tokenizer is not None and embedder.max_input_tokens == 256
    assert max(embedder.tokenizer.count(window) for window in windows) > 256


async def test_wiki_is_chunked_into_exact_slices_with_fitted_windows(
    embedder: SentenceTransformerEmbedder,
) -> None:
    chunker = EmbeddingSemanticChunker(embeddings=embedder, add_start_index=True)
    plan = await chunker.plan(_document())
    assert plan.fit.changed and plan.fit.resplit_sentences >= 1
    assert plan.ranges[0][0] == 0 and plan.ranges[-1][1] == len(WIKI)
    for (_, end), (start, _) in zip(plan.ranges, plan.ranges[1:], strict=False):
        assert end == start
    # Through the pipeline (validate_output re-checks exact slices in source order).
    chunks = await chunker([_document()]).run()
    assert [(c.metadata["start_index"], c.content) for c in chunks] == [
        (start, WIKI[start:end]) for start, end in plan.ranges
    ]
    assert len(chunks) >= 2
