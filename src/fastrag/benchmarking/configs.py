"""Chunker configurations under evaluation: a name, a chunker kind and its parameters.

Kinds:

``structure``
    fastrag's ``StructureAwareChunker``. Parameters: ``max_tokens``, ``target_tokens``,
    ``min_preferred_tokens``, ``overlap_tokens``, ``max_overlap_tokens``,
    ``include_heading_path_in_embedding``, ``merge_small_sections``, ``tokenizer``
    (``"model"`` = the embedding model's own tokenizer.json, the default; or any
    ``--tokenizer`` value) and ``format`` (how documents are normalized: ``text``,
    ``markdown``, ...; default ``text``). The embedded text is ``build_embedding_text``.
    ``semantic_mode`` (``heuristic``, ``disabled`` or ``llm``): with ``llm`` a
    ``ChatBoundaryRefiner`` asks the OpenAI-compatible endpoint ``llm_base_url`` (model
    ``llm_model``; key read from the environment variable named by ``llm_api_key_env``,
    never written in the file; ``llm_timeout`` seconds, ``llm_retries``,
    ``llm_concurrency``) about plain Markdown/RST paragraphs, so it needs ``format =
    "markdown"`` (or ``"rst"``) to have anything to ask about.
``embedding_semantic`` (also ``embedding-semantic``)
    ``EmbeddingSemanticChunker`` with the evaluation's own embedding model (and cache):
    ``buffer_size``, ``breakpoint_threshold_type``, ``breakpoint_threshold_amount``,
    ``number_of_chunks``, ``sentence_split_regex``, ``min_chunk_size``, ``batch_size``
    (the seed's defaults when absent) and ``format`` (``text`` or ``markdown``). Chunks
    are exact source slices; nothing caps their size.
``recursive_tokens``
    LangChain's recursive splitter with cl100k token lengths, as in Chroma's report
    (``chunk_size``, ``chunk_overlap``, ``separators``: ``"chroma"`` (default),
    ``"langchain"`` or a list).
``recursive_characters``
    fastrag's ``RecursiveCharacterTextSplitter`` (``chunk_size``, ``chunk_overlap`` in
    characters).

Files: JSON or TOML, one configuration (``{"name": ..., "chunker": ..., ...params}``) or
``{"configs": [...]}`` / ``[[configs]]``.

Retrieval settings (``fastrag.benchmarking.retrieval_settings``: ``retrieval``,
``bm25_over``, ``embed``, ``dedupe``, ``window_tokens``) are not chunker parameters:
they go in a ``retrieval`` table, either at the top of a file (for every configuration
in it) or in one configuration (``[configs.retrieval]``, over the file's table). A
configuration without any takes the run's settings (``fastrag eval --retrieval ...``).
"""

from __future__ import annotations

import itertools
import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from fastrag.benchmarking.retrieval_settings import RetrievalSettings, retrieval_settings
from fastrag.exceptions import ConfigurationError

__all__ = [
    "KINDS",
    "ChunkerConfig",
    "expand_grid",
    "load_configs",
    "parse_grid",
    "reproduction_configs",
]

KINDS: Final = ("structure", "recursive_tokens", "recursive_characters", "embedding_semantic")

LLM_PARAMS: Final = frozenset(
    {
        "llm_base_url",
        "llm_model",
        "llm_api_key_env",
        "llm_timeout",
        "llm_retries",
        "llm_concurrency",
    }
)
"""The chat endpoint of ``semantic_mode = "llm"`` (only with that mode)."""

_ALLOWED: Final[Mapping[str, frozenset[str]]] = {
    "structure": frozenset(
        {
            "max_tokens",
            "target_tokens",
            "min_preferred_tokens",
            "overlap_tokens",
            "max_overlap_tokens",
            "include_heading_path_in_embedding",
            "merge_small_sections",
            "tokenizer",
            "format",
            "semantic_mode",
            *LLM_PARAMS,
        }
    ),
    "recursive_tokens": frozenset({"chunk_size", "chunk_overlap", "separators"}),
    "recursive_characters": frozenset({"chunk_size", "chunk_overlap"}),
    "embedding_semantic": frozenset(
        {
            "buffer_size",
            "breakpoint_threshold_type",
            "breakpoint_threshold_amount",
            "number_of_chunks",
            "sentence_split_regex",
            "min_chunk_size",
            "batch_size",
            "format",
        }
    ),
}
_ALIASES: Final = {"embedding-semantic": "embedding_semantic"}


@dataclass(frozen=True, slots=True)
class ChunkerConfig:
    """One configuration: a display ``name``, a chunker ``kind`` and its ``params``.

    ``retrieval``: this configuration's retrieval settings, or ``None`` for the run's.
    """

    name: str
    kind: str
    params: Mapping[str, Any]
    retrieval: RetrievalSettings | None = None

    def __post_init__(self) -> None:
        if self.kind not in _ALLOWED:
            raise ConfigurationError(
                f"configuration {self.name!r}: unknown chunker {self.kind!r}; use one of "
                f"{', '.join(KINDS)}"
            )
        if "llm_api_key" in self.params:
            raise ConfigurationError(
                f"configuration {self.name!r}: never put an API key in a configuration "
                f"(it would be copied into results); name the environment variable that "
                f"holds it with llm_api_key_env"
            )
        unknown = sorted(set(self.params) - _ALLOWED[self.kind])
        if unknown:
            raise ConfigurationError(
                f"configuration {self.name!r}: {self.kind} takes no parameter "
                f"{', '.join(unknown)}; allowed: {', '.join(sorted(_ALLOWED[self.kind]))}"
            )
        if self.kind == "structure":
            _check_llm(self.name, self.params)

    def describe(self) -> dict[str, Any]:
        """JSON-ready ``{"name", "chunker", **params}`` (plus ``retrieval`` when set)."""
        described = {"name": self.name, "chunker": self.kind, **dict(self.params)}
        if self.retrieval is not None:
            described["retrieval"] = self.retrieval.describe()
        return described


def _check_llm(name: str, params: Mapping[str, Any]) -> None:
    """``semantic_mode = "llm"`` needs an endpoint and a model; the endpoint needs the mode."""
    mode = params.get("semantic_mode", "heuristic")
    given = sorted(LLM_PARAMS & set(params))
    if mode != "llm" and given:
        raise ConfigurationError(
            f"configuration {name!r}: {', '.join(given)} only apply with "
            f'semantic_mode = "llm" (got semantic_mode = {mode!r})'
        )
    missing = [key for key in ("llm_base_url", "llm_model") if mode == "llm" and key not in params]
    if missing:
        raise ConfigurationError(
            f'configuration {name!r}: semantic_mode = "llm" needs {" and ".join(missing)} '
            f'(e.g. llm_base_url = "http://127.0.0.1:8765/v1", llm_model = "local-standin")'
        )


def _retrieval(raw: object, where: str, base: RetrievalSettings | None) -> RetrievalSettings | None:
    if raw is None:
        return base
    if not isinstance(raw, Mapping):
        raise ConfigurationError(
            f'{where}: "retrieval" must be a table/object such as {{retrieval = "hybrid"}}'
        )
    return retrieval_settings(raw, where, base)


def _config(
    raw: object, where: str, index: int, retrieval: RetrievalSettings | None = None
) -> ChunkerConfig:
    if not isinstance(raw, Mapping):
        raise ConfigurationError(f"{where}: configuration {index} must be a table/object")
    params = dict(raw)
    kind = params.pop("chunker", "structure")
    name = params.pop("name", None)
    own = _retrieval(params.pop("retrieval", None), f"{where} configuration {index}", retrieval)
    if not isinstance(kind, str):
        raise ConfigurationError(f"{where}: 'chunker' must be a string")
    kind = _ALIASES.get(kind, kind)
    if name is None:
        name = kind + "".join(f" {key}={value}" for key, value in sorted(params.items()))
    return ChunkerConfig(str(name), kind, params, own)


def load_configs(path: str | os.PathLike[str]) -> list[ChunkerConfig]:
    """Configurations from a ``.json`` or ``.toml`` file."""
    source = Path(path)
    where = os.fspath(source)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigurationError(
            f"cannot read configuration file {where!r} ({error.strerror})"
        ) from error
    try:
        data: Any = tomllib.loads(text) if source.suffix == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise ConfigurationError(
            f"{where}: not valid {source.suffix[1:] or 'JSON'} ({error})"
        ) from error
    shared = None
    if isinstance(data, Mapping) and "configs" in data:
        shared = _retrieval(data.get("retrieval"), where, None)
        data = data["configs"]
    items = data if isinstance(data, list) else [data]
    return [_config(item, where, index, shared) for index, item in enumerate(items)]


def _value(text: str) -> Any:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for number in (int, float):
        try:
            return number(text)
        except ValueError:
            continue
    return text.strip()


def parse_grid(values: Sequence[str]) -> dict[str, list[Any]]:
    """``["max_tokens=128,256", "overlap_tokens=0,32"]`` -> ``{key: [values]}``."""
    grid: dict[str, list[Any]] = {}
    for value in values:
        key, separator, items = value.partition("=")
        if not separator or not key.strip() or not items.strip():
            raise ConfigurationError(
                f"--grid {value!r}: expected KEY=V1,V2,... such as max_tokens=128,256,512"
            )
        grid[key.strip()] = [_value(item) for item in items.split(",") if item.strip()]
    return grid


def expand_grid(
    grid: Mapping[str, Sequence[Any]],
    *,
    kind: str = "structure",
    base: Mapping[str, Any] | None = None,
) -> list[ChunkerConfig]:
    """Every combination of the grid's values, over ``base`` parameters."""
    keys = list(grid)
    configs = []
    for combination in itertools.product(*(grid[key] for key in keys)):
        params = {**(base or {}), **dict(zip(keys, combination, strict=True))}
        chosen = _ALIASES.get(kind, kind)
        name = chosen + "".join(f" {key}={params[key]}" for key in keys)
        configs.append(ChunkerConfig(name, chosen, params))
    return configs


def reproduction_configs() -> list[ChunkerConfig]:
    """The two LangChain rows of Chroma's report that the harness must reproduce."""
    return [
        ChunkerConfig(
            "RecursiveCharacterTextSplitter 250/125",
            "recursive_tokens",
            {"chunk_size": 250, "chunk_overlap": 125},
        ),
        ChunkerConfig(
            "RecursiveCharacterTextSplitter 200/0",
            "recursive_tokens",
            {"chunk_size": 200, "chunk_overlap": 0},
        ),
    ]
