"""Look for regular expressions of fastrag that backtrack super-linearly (by hand).

    .venv/bin/python bench/pattern_pump.py [NAME-FILTER] [--limit SECONDS]

Every compiled pattern kept at module level (also inside module-level dicts, tuples and
lists, and as class attributes) is *pumped*: hypothesis generates short strings the
pattern matches, and for each string ``s``, each slice ``s[i:j]`` of up to five
characters is repeated (12 times, then 1,500 times) with a tail that tends to make the
match fail (``""``, ``"\\x00"``, ``"x"``, ``" !"``, ``"\\n"``, ``"é"``), and timed under
``fullmatch``, ``search`` and ``match``. A pattern whose worst case takes over 20 ms is
printed with that case; one still running after ``--limit`` seconds (default 60) is
printed as TIMEOUT with the case it was stuck on.

A finding is a lead, not a bug: what matters is how the code calls the pattern (a
``search`` on a 64-character tail is bounded; a ``fullmatch`` on a whole paragraph is
not). ``tests/unit/test_backtracking.py`` holds a real input for each one fixed. Needs
the dev extra (hypothesis); takes about ten minutes.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import pkgutil
import re
import time
import warnings
from pathlib import Path
from queue import Empty
from typing import Any

import fastrag

_CASE_FILE = Path("/tmp/fastrag-pattern-pump.case")
_REPORT_SECONDS = 0.02


def collect() -> list[tuple[str, re.Pattern[Any]]]:
    """Every pattern of every fastrag module, named by where it is kept."""
    seen: dict[int, tuple[str, re.Pattern[Any]]] = {}

    def keep(name: str, value: object) -> None:
        if isinstance(value, re.Pattern) and id(value) not in seen:
            seen[id(value)] = (name, value)

    for info in pkgutil.walk_packages(fastrag.__path__, "fastrag."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for name, value in list(vars(module).items()):
            keep(f"{info.name}.{name}", value)
            if isinstance(value, type):
                for attribute, inner in vars(value).items():
                    keep(f"{info.name}.{name}.{attribute}", inner)
            elif isinstance(value, dict):
                for key, inner in value.items():
                    keep(f"{info.name}.{name}[{key!r}]", inner)
            elif isinstance(value, tuple | list):
                for index, inner in enumerate(value):
                    keep(f"{info.name}.{name}[{index}]", inner)
                    if isinstance(inner, tuple | list):
                        for position, item in enumerate(inner):
                            keep(f"{info.name}.{name}[{index}][{position}]", item)
    return sorted(seen.values(), key=lambda item: item[0])


def examples(pattern: re.Pattern[Any], count: int = 10) -> list[Any]:
    """Up to ``count`` short strings that ``pattern`` matches somewhere."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    found: list[Any] = []

    @settings(
        max_examples=count * 4,
        database=None,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(st.from_regex(pattern))
    def gather(text: Any) -> None:
        if len(text) <= 30:
            found.append(text)

    try:
        gather()
    except Exception:  # a pattern hypothesis cannot generate from
        return []
    return list(dict.fromkeys(found))[:count]


def pump(name: str, pattern: re.Pattern[Any], results: Any) -> None:
    """The worst (seconds, case) over every pumped string; runs in a child process."""
    is_bytes = isinstance(pattern.pattern, bytes)
    tails: list[Any] = ["", "\x00", "x", " !", "\n", "é"]
    if is_bytes:
        tails = [tail.encode() for tail in tails[:5]]
    worst: tuple[float, Any] = (0.0, None)
    samples = examples(pattern)
    for sample in samples:
        for start in range(len(sample)):
            for end in range(start + 1, min(len(sample), start + 5) + 1):
                for tail in tails:
                    for times, operations in (
                        (12, ("fullmatch", "search", "match")),
                        (1500, ("search", "fullmatch")),
                    ):
                        text = sample[:start] + sample[start:end] * times + sample[end:] + tail
                        for operation in operations:
                            case = (
                                operation,
                                times,
                                sample[:start],
                                sample[start:end],
                                sample[end:],
                                tail,
                            )
                            _CASE_FILE.write_text(repr(case))
                            began = time.perf_counter()
                            getattr(pattern, operation)(text)
                            took = time.perf_counter() - began
                            if took > worst[0]:
                                worst = (took, case)
    results.put((worst[0], worst[1] if samples else "no examples"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="?", default="", help="pump patterns whose name has this")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per pattern")
    arguments = parser.parse_args()
    warnings.simplefilter("ignore")
    context = multiprocessing.get_context("fork")
    for name, pattern in collect():
        if arguments.only not in name:
            continue
        results = context.Queue()
        child = context.Process(target=pump, args=(name, pattern, results))
        child.start()
        child.join(arguments.limit)
        if child.is_alive():
            child.kill()
            print(f"TIMEOUT {name} {_CASE_FILE.read_text()[:300]}", flush=True)
            continue
        try:
            took, case = results.get(timeout=1)
        except Empty:
            print(f"NO RESULT {name}", flush=True)
            continue
        if took > _REPORT_SECONDS or case == "no examples":
            print(f"{took:.3f}s {name} {case!r:.200}", flush=True)


if __name__ == "__main__":
    main()
