"""The model-assisted configurations of ``fastrag eval``: embedding-semantic, and the
structure-aware chunker refined by a chat endpoint — here the local stand-in
(``fastrag.benchmarking._local_chat``), a real HTTP server on 127.0.0.1 whose proposals
come from the real all-MiniLM-L6-v2 (embedding distances between sentences; not an LLM).

The paragraph below turns from baking to astronomy after its second sentence; with
``max_tokens = 64`` it must be cut somewhere. The heuristic cuts after the third sentence,
the refined chunker where the stand-in saw the topic change.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastrag.benchmarking._embedding import CachedEmbedder, SentenceTransformerEmbedder
from fastrag.benchmarking._local_chat import (
    LocalChatServer,
    embedding_proposer,
    propose_by_distance,
)
from fastrag.benchmarking.chunking import chunk_corpus
from fastrag.benchmarking.configs import ChunkerConfig, expand_grid, load_configs, parse_grid
from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking.refiner import ChatBoundaryRefiner, RefinementResult
from fastrag.llm import ChatModelError, OpenAIChatModel
from fastrag.packing.split.prose import sentence_starts
from fastrag.tokenization import HuggingFaceTokenizer, TiktokenTokenizer

PARAGRAPH = (
    "Bread needs flour, water, salt and yeast. Knead the dough for ten minutes until it is "
    "smooth. Jupiter is the largest planet in the solar system and has dozens of moons. "
    "Saturn's rings are made mostly of ice particles with some rock and dust. Mars has the "
    "tallest volcano in the solar system, Olympus Mons. The Andromeda galaxy is the nearest "
    "large spiral galaxy to the Milky Way."
)
DOCUMENT = f"# Notes\n\n{PARAGRAPH}\n"
SHIFT = PARAGRAPH.index("Jupiter")
"""The allowed offset where the topic changes (94)."""
KEY = "sk-standin-test-do-not-leak-51d2"
STRUCTURE = {"max_tokens": 64, "target_tokens": 40, "min_preferred_tokens": 10}


@pytest.fixture
def server(model: SentenceTransformerEmbedder) -> Iterator[LocalChatServer]:
    running = LocalChatServer(embedding_proposer(model, fraction=0.2)).start()
    try:
        yield running
    finally:
        running.stop()


def test_the_stand_in_proposes_the_largest_embedding_distance(
    model: SentenceTransformerEmbedder,
) -> None:
    allowed = sentence_starts(PARAGRAPH)
    assert allowed == (42, SHIFT, 169, 242, 306)
    assert propose_by_distance(PARAGRAPH, allowed, model.embed, 0.2) == [SHIFT]
    assert propose_by_distance(PARAGRAPH, allowed, model.embed, 1.0) == list(allowed)
    assert propose_by_distance(PARAGRAPH, (), model.embed) == []


async def test_the_refiner_accepts_the_stand_ins_answer_over_http(
    server: LocalChatServer,
) -> None:
    chat = OpenAIChatModel("standin", api_key=KEY, base_url=server.base_url, max_retries=0)
    refiner = ChatBoundaryRefiner(
        llm=chat, identity=chat.identity, allow_external_transmission=True, timeout=30
    )
    allowed = sentence_starts(PARAGRAPH)
    result = await refiner.refine(node_id="p", text=PARAGRAPH, allowed=allowed)
    assert result == RefinementResult(boundaries=(SHIFT,), calls=1)
    assert (server.requests, server.authorized, server.failures) == (1, 1, 0)


async def test_anything_but_the_refiners_task_is_refused_not_answered(
    server: LocalChatServer,
) -> None:
    chat = OpenAIChatModel("standin", base_url=server.base_url, max_retries=0)
    with pytest.raises(ChatModelError, match="400"):
        await chat.complete([{"role": "user", "content": "Write a poem."}])
    assert (server.requests, server.failures) == (1, 1)


def _tokenizer(model: SentenceTransformerEmbedder) -> HuggingFaceTokenizer:
    return HuggingFaceTokenizer(model.tokenizer_file)


def test_refined_structure_cuts_at_the_proposal_and_keeps_exact_spans(
    server: LocalChatServer, model: SentenceTransformerEmbedder
) -> None:
    documents = {"notes.md": DOCUMENT}
    heading = DOCUMENT.index(PARAGRAPH)
    spans = {}
    for mode in ("heuristic", "llm"):
        params: dict[str, object] = {**STRUCTURE, "format": "markdown", "semantic_mode": mode}
        if mode == "llm":
            params |= {"llm_base_url": server.base_url, "llm_model": "standin"}
        chunks, notes = chunk_corpus(
            ChunkerConfig(mode, "structure", params),
            documents,
            cl100k=TiktokenTokenizer("cl100k_base"),
            model_tokenizer=lambda: _tokenizer(model),
        )
        spans[mode] = [chunk.spans for chunk in chunks]
        for chunk in chunks:
            assert chunk.text == "".join(DOCUMENT[start:end] for start, end in chunk.spans)
    assert spans["heuristic"][0] == ((0, heading + PARAGRAPH.index("Saturn")),)
    assert spans["llm"][0] == ((0, heading + SHIFT),)
    assert spans["llm"][-1][-1][1] == len(DOCUMENT.rstrip("\n"))
    assert notes == {
        "refinement": {
            "paragraphs_asked": 1,
            "model_calls": 1,
            "model_cache_hits": 0,
            "boundaries_offered": 5,
            "boundaries_chosen": 1,
            "fallbacks": {},
        }
    }


def test_embedding_semantic_chunks_are_exact_slices_embedded_through_the_cache(
    model: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    from fastrag.benchmarking._embedding import EmbeddingCache

    embedder = CachedEmbedder(model, EmbeddingCache(tmp_path / "cache.sqlite"))
    # buffer_size 0: each sentence alone, so the largest distance is the topic change
    # (with the default 1, windows of three sentences blur it and the cut moves earlier).
    config = ChunkerConfig("es", "embedding_semantic", {"format": "markdown", "buffer_size": 0})
    chunks, notes = chunk_corpus(
        config,
        {"notes.md": DOCUMENT},
        cl100k=TiktokenTokenizer("cl100k_base"),
        model_tokenizer=lambda: _tokenizer(model),
        embedder=embedder,
    )
    heading = DOCUMENT.index(PARAGRAPH)
    assert [chunk.spans for chunk in chunks] == [
        ((0, heading + SHIFT),),
        ((heading + SHIFT, len(DOCUMENT)),),
    ]
    assert "".join(chunk.text for chunk in chunks) == DOCUMENT
    assert embedder.embedded == 6  # one window per sentence ("# Notes\n\nBread ..." is one)
    assert notes == {
        "window_fitting": {
            "fitted_documents": 0,
            "narrowed_windows": 0,
            "resplit_sentences": 0,
            "word_split_sentences": 0,
        }
    }


def test_configs_name_the_endpoint_but_never_hold_a_key(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[[configs]]\nchunker = "embedding-semantic"\nbreakpoint_threshold_amount = 80\n'
        '[[configs]]\nname = "llm"\nformat = "markdown"\nsemantic_mode = "llm"\n'
        'llm_base_url = "http://127.0.0.1:1/v1"\nllm_model = "m"\nllm_api_key_env = "K"\n',
        encoding="utf-8",
    )
    semantic, llm = load_configs(path)
    assert semantic.kind == "embedding_semantic"
    assert semantic.name == "embedding_semantic breakpoint_threshold_amount=80"
    assert llm.describe()["llm_api_key_env"] == "K"
    grid = parse_grid(["breakpoint_threshold_amount=80,92.5"])
    assert grid == {"breakpoint_threshold_amount": [80, 92.5]}
    expanded = expand_grid(grid, kind="embedding-semantic")
    assert [(c.name, c.kind, dict(c.params)) for c in expanded] == [
        (f"embedding_semantic breakpoint_threshold_amount={value}", "embedding_semantic",
         {"breakpoint_threshold_amount": value})
        for value in (80, 92.5)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"llm_model": "m"}, "only apply with semantic_mode"),
        ({"semantic_mode": "llm", "llm_model": "m"}, "needs llm_base_url"),
        ({"semantic_mode": "llm", "llm_api_key": "sk-x"}, "never put an API key"),
    ],
)
def test_bad_llm_settings_fail_when_the_configuration_is_read(
    params: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message) as raised:
        ChunkerConfig("c", "structure", params)
    assert "sk-x" not in str(raised.value)


def test_a_missing_key_variable_is_a_clear_error(
    server: LocalChatServer, monkeypatch: pytest.MonkeyPatch, model: SentenceTransformerEmbedder
) -> None:
    monkeypatch.delenv("FASTRAG_EVAL_ABSENT_KEY", raising=False)
    params = {
        **STRUCTURE,
        "format": "markdown",
        "semantic_mode": "llm",
        "llm_base_url": server.base_url,
        "llm_model": "standin",
        "llm_api_key_env": "FASTRAG_EVAL_ABSENT_KEY",
    }
    with pytest.raises(ConfigurationError, match=r"\$FASTRAG_EVAL_ABSENT_KEY, which is not set"):
        chunk_corpus(
            ChunkerConfig("llm", "structure", params),
            {"notes.md": DOCUMENT},
            cl100k=TiktokenTokenizer("cl100k_base"),
            model_tokenizer=lambda: _tokenizer(model),
        )
    assert server.requests == 0


def test_fastrag_eval_compares_model_assisted_configs_and_keeps_the_key_out(
    tmp_path: Path,
    server: LocalChatServer,
    shared_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from fastrag.cli import main as cli_main

    monkeypatch.setenv("FASTRAG_EVAL_TEST_KEY", KEY)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(DOCUMENT, encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        "\n".join(
            json.dumps({"question": q, "references": [{"document": "notes.md", "quote": quote}]})
            for q, quote in [
                ("How long is dough kneaded?", "Knead the dough for ten minutes"),
                ("What is the largest planet?", "Jupiter is the largest planet"),
                ("Where is the tallest volcano?", "Mars has the tallest volcano"),
            ]
        ),
        encoding="utf-8",
    )
    config = tmp_path / "configs.toml"
    shape = "max_tokens = 64\ntarget_tokens = 40\nmin_preferred_tokens = 10\nformat = 'markdown'\n"
    config.write_text(
        f'[[configs]]\nname = "heuristic"\n{shape}'
        f'[[configs]]\nname = "refined"\n{shape}semantic_mode = "llm"\n'
        f'llm_base_url = "{server.base_url}"\nllm_model = "standin"\n'
        f'llm_api_key_env = "FASTRAG_EVAL_TEST_KEY"\n'
        '[[configs]]\nname = "semantic"\nchunker = "embedding-semantic"\nformat = "markdown"\n',
        encoding="utf-8",
    )
    out = tmp_path / "result.json"
    argv = [
        "eval", "--corpus", str(docs), "--questions", str(questions), "--config", str(config),
        "--k", "1", "--cache", str(shared_cache), "--json", str(out),
    ]  # fmt: skip
    assert cli_main.main(argv) == 0
    printed = capsys.readouterr()
    raw = out.read_text(encoding="utf-8")
    assert KEY not in raw and KEY not in printed.out and KEY not in printed.err
    results = {result["config"]["name"]: result for result in json.loads(raw)["results"]}
    assert list(results) == ["heuristic", "refined", "semantic"]
    assert results["refined"]["config"]["llm_api_key_env"] == "FASTRAG_EVAL_TEST_KEY"
    assert results["refined"]["cost"]["refinement"]["model_calls"] == 1
    assert results["refined"]["cost"]["refinement"]["fallbacks"] == {}
    assert (server.requests, server.authorized) == (1, 1)
    assert results["semantic"]["cost"]["chunks"] == 2
    assert results["heuristic"]["cost"]["chunks"] == results["refined"]["cost"]["chunks"] == 3
    for result in results.values():
        assert result["overall"]["recall"]["n"] == 3
    # k = 1: the refined chunks keep each answer inside the chunk about its topic.
    assert results["refined"]["overall"]["recall"]["mean"] == 1.0
