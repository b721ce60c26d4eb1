"""A LangChain ``Embeddings`` over a fastrag ``Embedder``, callable from a worker thread.

LangChain's ``SemanticChunker`` is synchronous: it calls ``embed_documents`` and blocks.
It runs in a worker thread so the event loop stays free, and each of its calls is
submitted back to that loop (``asyncio.run_coroutine_threadsafe``), where the Embedder
(its HTTP client, its model lock) lives. Importing this module imports ``langchain_core``;
``langchain_semantic`` imports it only when a document is split.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from langchain_core.embeddings import Embeddings

from fastrag.exceptions import ChunkingError

if TYPE_CHECKING:
    from fastrag.ingestion.steps.embedding import Embedder
    from fastrag.llm import Vector

__all__ = ["LoopEmbeddings"]


class LoopEmbeddings(Embeddings):
    """Embed on ``loop`` with ``embedder``, ``batch_size`` texts per ``aembed_texts`` call.

    ``close()`` (called when the splitting task ends, cancelled or not) makes every later
    call fail at once, so an abandoned thread never waits on a loop that has moved on.
    """

    def __init__(
        self, embedder: Embedder, loop: asyncio.AbstractEventLoop, batch_size: int
    ) -> None:
        self._embedder = embedder
        self._loop = loop
        self._batch_size = batch_size
        self._closed = threading.Event()
        self._pending: set[Future[list[Vector]]] = set()
        self._lock = threading.Lock()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Block this (worker) thread until the loop has embedded ``texts``."""
        future = self._submit(texts)
        try:
            vectors = future.result()
        finally:
            with self._lock:
                self._pending.discard(future)
        return [list(vector) for vector in vectors]

    def embed_query(self, text: str) -> list[float]:
        """One text, embedded like a document (fastrag embedders have no query mode)."""
        return self.embed_documents([text])[0]

    def close(self) -> None:
        """Refuse further calls and cancel the ones in flight."""
        self._closed.set()
        with self._lock:
            pending = list(self._pending)
        for future in pending:
            future.cancel()

    def _submit(self, texts: Sequence[str]) -> Future[list[Vector]]:
        with self._lock:
            if self._closed.is_set():
                raise ChunkingError(
                    "LangchainSemanticChunker: the splitting task ended (cancelled or "
                    "failed); this embedding call was refused"
                )
            future = asyncio.run_coroutine_threadsafe(self._embed(list(texts)), self._loop)
            self._pending.add(future)
        return future

    async def _embed(self, texts: list[str]) -> list[Vector]:
        vectors: list[Vector] = []
        for first in range(0, len(texts), self._batch_size):
            batch = texts[first : first + self._batch_size]
            vectors.extend(await self._embedder.aembed_texts(batch))
        return vectors
