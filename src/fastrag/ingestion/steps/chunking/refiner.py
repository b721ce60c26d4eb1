"""``ChatBoundaryRefiner``: ask a chat model which allowed offsets of a paragraph to cut at.

The refiner is an advisor, never an author: it sends one paragraph verbatim with the
offsets the deterministic splitter would accept, and returns a subset of those offsets —
or nothing and a reason. Every ordinary failure (timeout, HTTP error, a provider
exception, an answer that is not exactly the JSON asked for, an offset not allowed, an
answer over ``max_response_chars``, input over ``max_input_chars``) becomes
``RefinementResult(fallback=reason)``, and the caller keeps its heuristic boundaries, so a
flaky model can change where prose is cut but never lose text or break a budget.
``asyncio.CancelledError`` is not an ordinary failure and propagates.

Nothing leaves the process unless ``allow_external_transmission=True``: the default
refuses every ``refine`` call with a ``ConfigurationError`` (the refusal is a
configuration mistake to fix, not a condition to fall back from silently).
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from fastrag._checks import finite_number, int_at_least
from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking._refiner_protocol import (
    PROMPT_VERSION,
    Rejected,
    boundary_messages,
    parse_boundaries,
)
from fastrag.pipeline import Policy
from fastrag.pipeline.hashing import sha256_parts

if TYPE_CHECKING:
    from fastrag.llm.chat import ChatModel

__all__ = ["ChatBoundaryRefiner", "RefinementResult"]

_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class RefinementResult:
    """Validated proposal and runtime-only observations for a single request.

    ``boundaries`` are allowed source offsets (strictly increasing) the model chose;
    ``calls`` counts model requests made for this result (0 on a cache hit or when
    nothing was sent); ``fallback`` is None on success or a short reason code telling
    the caller to use its deterministic heuristic (codes never contain document text).
    """

    boundaries: tuple[int, ...] = ()
    calls: int = 0
    cache_hit: bool = False
    fallback: str | None = None


class ChatBoundaryRefiner:
    """Reuse an injected ChatModel with explicit permission and nonsecret identity.

    ``identity`` must distinguish endpoint/model/generation settings without containing
    secrets (``OpenAIChatModel.identity`` does). The strategy never examines provider
    credentials. ``timeout`` bounds each call; ``retries`` extra calls follow provider
    failures after ``backoff`` seconds (doubling); at most ``concurrency`` calls run at
    once per event loop. Successful proposals optionally cache in an instance-local LRU
    of ``cache_size`` entries (keyed by a hash of text and offsets: no source is kept).
    Configure the provider's own output-token limit to bound response generation.
    """

    def __init__(
        self,
        *,
        llm: ChatModel,
        identity: str,
        allow_external_transmission: bool = False,
        timeout: float = 30.0,
        retries: int = 0,
        backoff: float = 0.1,
        concurrency: int = 2,
        max_input_chars: int = 12000,
        max_response_chars: int = 16000,
        cache_size: int = 0,
    ) -> None:
        if not callable(getattr(llm, "complete", None)):
            raise ConfigurationError(
                f"llm must be a ChatModel with an async complete(messages) method "
                f"(got {type(llm).__name__}); e.g. fastrag.llm.OpenAIChatModel(...)"
            )
        if not isinstance(identity, str) or not identity.strip():
            raise ConfigurationError(
                "identity must be a nonempty, nonsecret str naming endpoint, model and "
                "generation settings (e.g. OpenAIChatModel(...).identity)"
            )
        if not isinstance(allow_external_transmission, bool):
            raise ConfigurationError(
                f"allow_external_transmission must be True or False "
                f"(got {allow_external_transmission!r})"
            )
        self.llm = llm
        self.identity = identity
        self.allow_external_transmission = allow_external_transmission
        self.timeout = finite_number("timeout", timeout, positive=True, unit="seconds")
        self.retries = int_at_least("retries", retries, 0)
        self.backoff = finite_number("backoff", backoff, positive=False, unit="seconds")
        self.concurrency = int_at_least("concurrency", concurrency, 1)
        self.max_input_chars = int_at_least("max_input_chars", max_input_chars, 1)
        self.max_response_chars = int_at_least("max_response_chars", max_response_chars, 1)
        self.cache_size = int_at_least("cache_size", cache_size, 0)
        self._schedule = Policy(retries=self.retries, backoff=self.backoff)
        self._cache: OrderedDict[str, tuple[int, ...]] = OrderedDict()
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._gates = weakref.WeakKeyDictionary()

    def config(self) -> dict[str, Any]:
        """Nonsecret complete strategy identity for pipeline/response caches.

        Everything that can change a result: the model identity, the prompt and answer
        format, and the limits and call settings that decide between an answer and a
        fallback. ``concurrency`` and ``cache_size`` change only speed, so they are left
        out (two refiners differing only there share cached chunks).
        """
        return {
            "strategy": "chat_boundary_refiner",
            "version": _VERSION,
            "prompt": PROMPT_VERSION,
            "identity": self.identity,
            "timeout": self.timeout,
            "retries": self.retries,
            "max_input_chars": self.max_input_chars,
            "max_response_chars": self.max_response_chars,
        }

    @property
    def cache_entries(self) -> int:
        """Current bounded response-cache occupancy, without source exposure."""
        return len(self._cache)

    async def refine(self, *, node_id: str, text: str, allowed: Sequence[int]) -> RefinementResult:
        """Select validated offsets; all ordinary failures become local fallback."""
        if not self.allow_external_transmission:
            raise ConfigurationError(
                "ChatBoundaryRefiner refuses to send document text to its chat model: "
                "allow_external_transmission is False. Pass "
                "allow_external_transmission=True to permit it, or use "
                "semantic_mode='heuristic' (no model)"
            )
        candidates = _candidates(node_id, text, allowed)
        if not candidates:
            return RefinementResult()
        if len(text) > self.max_input_chars:
            return RefinementResult(fallback="input_too_long")
        key = sha256_parts(text, ",".join(map(str, candidates)))
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return RefinementResult(boundaries=cached, cache_hit=True)
        async with self._gate():
            result = await self._ask(node_id, text, candidates)
        if result.fallback is None and self.cache_size:
            self._cache[key] = result.boundaries
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return result

    async def _ask(self, node_id: str, text: str, candidates: tuple[int, ...]) -> RefinementResult:
        """Call the model (with retries) and validate; never raises an ordinary failure."""
        messages = boundary_messages(text, candidates)
        calls = 0
        while True:
            calls += 1
            try:
                async with asyncio.timeout(self.timeout):
                    answer = await self.llm.complete(messages)
            except TimeoutError:
                reason = "timeout"
                retryable = True
            except Exception as error:  # noqa: BLE001 - any provider failure falls back
                reason = f"provider_error:{type(error).__name__}"
                retryable = getattr(error, "transient", True) is not False
            else:
                return self._judged(answer, candidates, calls)
            if not retryable or calls > self.retries:
                return RefinementResult(calls=calls, fallback=reason)
            await asyncio.sleep(self._schedule.delay_for(calls, node_id))

    def _judged(self, answer: object, candidates: tuple[int, ...], calls: int) -> RefinementResult:
        """Validate an answer whole: its offsets, or a fallback with the reason code."""
        if not isinstance(answer, str):
            return RefinementResult(calls=calls, fallback="invalid_response")
        if len(answer) > self.max_response_chars:
            return RefinementResult(calls=calls, fallback="response_too_long")
        try:
            boundaries = parse_boundaries(answer, frozenset(candidates))
        except Rejected as rejected:
            return RefinementResult(calls=calls, fallback=rejected.reason)
        return RefinementResult(boundaries=boundaries, calls=calls)

    def _gate(self) -> asyncio.Semaphore:
        """This event loop's semaphore (a semaphore binds to the loop that first waits)."""
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = asyncio.Semaphore(self.concurrency)
        return gate

    def __getstate__(self) -> dict[str, Any]:
        """Pickle settings only (for a Dask worker): caches and semaphores start empty."""
        state = dict(self.__dict__)
        state["_cache"] = OrderedDict()
        del state["_gates"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._gates = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return (
            f"ChatBoundaryRefiner(identity={self.identity!r}, "
            f"allow_external_transmission={self.allow_external_transmission}, "
            f"cache_entries={self.cache_entries})"
        )


def _candidates(node_id: str, text: str, allowed: Sequence[int]) -> tuple[int, ...]:
    """``allowed`` sorted and deduplicated, refusing offsets that are not inside ``text``."""
    if not isinstance(text, str):
        raise ChunkingError(f"refine(node_id={node_id!r}) needs text as a str")
    if isinstance(allowed, str | bytes) or not isinstance(allowed, Sequence | frozenset | set):
        raise ChunkingError(f"refine(node_id={node_id!r}) needs allowed as a sequence of ints")
    offsets = set()
    for offset in allowed:
        if type(offset) is not int or not 0 < offset < len(text):
            raise ChunkingError(
                f"refine(node_id={node_id!r}): allowed offsets must be ints strictly inside "
                f"the text (1..{len(text) - 1}); got {offset!r}"
            )
        offsets.add(offset)
    return tuple(sorted(offsets))
