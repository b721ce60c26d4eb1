"""``SentenceTransformerModel`` with the real all-MiniLM-L6-v2 (loaded once per module)."""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.llm import EmbeddingModel, SentenceTransformerModel, default_model_path
from tests._paths import CORPUS

TEXTS = [
    "A cat sits on the mat.",
    "A kitten is sitting on a rug.",
    "Quarterly tax returns are due at the end of the month.",
    "Ünïcödé, 東京, emoji 🙂 and a lone surrogate \ud800 survive.",
]


@pytest.fixture(scope="module")
def model() -> SentenceTransformerModel:
    instance = SentenceTransformerModel()
    instance.dimension  # noqa: B018 - load once for the whole module
    return instance


def _cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _st_tokenizer(model: SentenceTransformerModel) -> Any:
    """The tokenizer sentence-transformers itself feeds the network with."""
    return model._loaded().tokenizer


def test_is_an_embedding_model_of_384_dimensions_and_256_tokens(
    model: SentenceTransformerModel,
) -> None:
    assert isinstance(model, EmbeddingModel)
    assert (model.dimension, model.max_input_tokens) == (384, 256)
    assert model.tokenizer.add_special_tokens
    assert model.identity.startswith("sentence-transformers:all-MiniLM-L6-v2:sha256=")
    assert model.identity.endswith(":normalize=true")


async def test_vectors_are_unit_length_deterministic_and_meaningful(
    model: SentenceTransformerModel,
) -> None:
    first = await model.embed(TEXTS)
    again = await model.embed(TEXTS)
    assert first == again  # the same batch gives bit-identical vectors
    assert all(len(vector) == 384 and type(vector[0]) is float for vector in first)
    assert all(math.isclose(math.fsum(x * x for x in v), 1.0, abs_tol=1e-5) for v in first)
    cat, kitten, taxes = first[0], first[1], first[2]
    assert _cosine(cat, kitten) > 0.5 > _cosine(cat, taxes)


async def test_a_batch_equals_its_texts_embedded_alone(model: SentenceTransformerModel) -> None:
    batch = await model.embed(TEXTS)
    for text, batched in zip(TEXTS, batch, strict=True):
        (alone,) = await model.embed([text])
        # Padding changes the matmul shapes, so the last float bit may differ; 1e-6 is
        # four orders of magnitude below any retrieval-relevant difference.
        assert max(abs(x - y) for x, y in zip(alone, batched, strict=True)) < 1e-6


def test_token_counts_are_what_the_model_sees_on_real_text(
    model: SentenceTransformerModel,
) -> None:
    texts = [
        block
        for name in ("wiki.md", "mixed.md", "wiki_duck.html")
        for block in (CORPUS / "web" / name).read_text(encoding="utf-8").split("\n\n")
        if block.strip()
    ]
    assert len(texts) >= 60
    reference = _st_tokenizer(model)
    for text in texts:
        assert model.tokenizer.count(text) == len(reference(text)["input_ids"])


async def test_max_input_tokens_is_exactly_where_the_model_truncates(
    model: SentenceTransformerModel,
) -> None:
    words = [f"{word}" for word in ("river", "stone", "cloud", "apple", "music", "light")]
    text = ""
    index = 0
    while model.tokenizer.count(text) < 256:
        text = f"{text} {words[index % len(words)]}{index % 7}".strip()
        index += 1
    # The digits make each step add 2 tokens; trim back to exactly 256 if it overshot.
    if model.tokenizer.count(text) > 256:
        text = text.rsplit(" ", 1)[0] + " river"
    at_limit = text
    assert model.tokenizer.count(at_limit) == 256
    over = f"{at_limit} lake"
    assert model.tokenizer.count(over) == 257
    below = at_limit.rsplit(" ", 1)[0]
    embedded = await model.embed([below, at_limit, over])
    assert embedded[1] != embedded[0]  # the 256th token is read...
    assert embedded[2] == embedded[1]  # ...and the 257th silently dropped


def test_identity_follows_the_files_and_settings(model: SentenceTransformerModel) -> None:
    same = SentenceTransformerModel(default_model_path())
    assert same.identity.split(":sha256=")[1] == model.identity.split(":sha256=")[1]
    raw = SentenceTransformerModel(normalize=False)
    assert raw.identity.endswith(":normalize=false")


def test_pickles_as_settings_and_reloads_lazily(model: SentenceTransformerModel) -> None:
    clone = pickle.loads(pickle.dumps(model))
    assert clone.identity == model.identity
    assert clone._model is None
    assert len(pickle.dumps(model)) < 10_000


def test_a_directory_without_a_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"no modules\.json"):
        SentenceTransformerModel(tmp_path)
