"""The cyclic garbage collector's settings for fastrag's own processes (CLI and workers).

Normalized trees, layouts and chunk metadata are hundreds of thousands of small,
long-lived, acyclic objects. With CPython's default thresholds the collector runs a
young collection every 700 allocations and a full one each time the heap has grown by a
quarter, and every one of them walks objects that can never be garbage. A young
generation of 10,000 leaves the engine about a tenth faster on the Markdown bench
corpus (3.5–3.9× → 3.2–3.3× the tokenization floor, measured alternating in one
process) and ``fastrag ingest`` over the whole bench corpus 10–15 % cheaper (33.5–35.2
→ 30.1–30.5 CPU-s with one worker, 38.9–39.8 → 33.8–35.0 with two; same records), and
delays the collection of real cyclic garbage by a few thousand objects. Those figures
predate exclusions kept as offset arrays (a third fewer tracked objects per tree): in
instructions (callgrind) the setting now saves 2–3 % of the engine's work on Markdown
and HTML.

The library itself never calls this: the collector is process-wide state, and an
application embedding fastrag owns it. The ``fastrag`` command and the worker
processes it spawns *are* the application, so they do.
"""

from __future__ import annotations

import gc
from typing import Final

__all__ = ["YOUNG_THRESHOLD", "tune_for_batch_work"]

YOUNG_THRESHOLD: Final = 10_000
"""Allocations between young collections (CPython's default is 700)."""


def tune_for_batch_work(*, freeze: bool = False) -> None:
    """Raise the young-generation threshold; ``freeze`` also moves what exists now out of
    every future collection (start-up objects: modules, functions, the built plan), so
    full collections walk only the documents' objects."""
    young, middle, old = gc.get_threshold()
    if young:  # 0: collection was switched off on purpose; leave it off
        gc.set_threshold(max(YOUNG_THRESHOLD, young), middle, old)
    if freeze:
        gc.freeze()
