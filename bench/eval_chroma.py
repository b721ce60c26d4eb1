"""Run Chroma's dataset through ``fastrag.benchmarking`` (by hand; minutes per config).

    .venv/bin/python bench/eval_chroma.py OUT.json [--cache PATH] [--protocol k|tokens]
        [--config FILE ...] [--reproduce] [--grid key=v1,v2 ...]

Prints one line per configuration and writes the full JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import cache
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from fastrag.benchmarking._embedding import (
    CachedEmbedder,
    EmbeddingCache,
    SentenceTransformerEmbedder,
    default_model_dir,
)
from fastrag.benchmarking.chroma import load_chroma
from fastrag.benchmarking.configs import (
    expand_grid,
    load_configs,
    parse_grid,
    reproduction_configs,
)
from fastrag.benchmarking.evaluate import EvalSettings, evaluate
from fastrag.tokenization import HuggingFaceTokenizer


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("output", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("out/eval-embeddings.sqlite"))
    parser.add_argument("--protocol", choices=("k", "tokens"), default="k")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--token-budget", type=int, default=1000)
    parser.add_argument("--spans", choices=("first", "exact"), default="first")
    parser.add_argument("--config", action="append", default=[], type=Path)
    parser.add_argument("--grid", action="append", default=[])
    parser.add_argument("--reproduce", action="store_true")
    arguments = parser.parse_args()
    configs = [c for path in arguments.config for c in load_configs(path)]
    if arguments.grid:
        configs += expand_grid(parse_grid(arguments.grid))
    if arguments.reproduce:
        configs = reproduction_configs() + configs
    corpus = load_chroma()
    model = SentenceTransformerEmbedder(default_model_dir())
    embedder = CachedEmbedder(model, EmbeddingCache(arguments.cache))

    @cache
    def tokenizer() -> HuggingFaceTokenizer:
        return HuggingFaceTokenizer(model.tokenizer_file)

    started = time.time()

    def progress(message: str) -> None:
        print(f"[{time.time() - started:7.1f}s] {message}", file=sys.stderr, flush=True)

    settings = EvalSettings(
        protocol=arguments.protocol,
        k=arguments.k,
        token_budget=arguments.token_budget,
        spans=arguments.spans,
    )
    results = evaluate(
        corpus, configs, embedder, settings=settings, model_tokenizer=tokenizer, progress=progress
    )
    for result in results:
        o = result.overall
        print(
            f"{result.config.name:55s} recall {100 * o['recall'].mean:5.1f}"
            f" ± {100 * o['recall'].std:4.1f}"
            f"  IoU {100 * o['iou'].mean:4.2f} ± {100 * o['iou'].std:4.2f}"
            f"  prec {100 * o['precision'].mean:4.2f}  Ω {100 * o['precision_omega'].mean:5.2f}"
            f"  chunks {result.cost['chunks']}  trunc {result.cost['truncated_fraction']:.2f}",
            flush=True,
        )
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    arguments.output.write_text(
        json.dumps([result.as_dict() for result in results], indent=2), encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
