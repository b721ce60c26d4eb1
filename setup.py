"""Build hook: compile the engine's hot modules to C with mypyc.

Everything else about the package lives in pyproject.toml. The modules below (packing,
counting, the Markdown and HTML tree builders) are plain, fully typed Python (mypy
--strict); mypyc turns each into a C extension that runs the same code faster: split()
took 13-34 % less CPU in alternating benchmark cells (bench/README.md, 2026-12-07).
They stay importable as Python: a machine without a C compiler, or
``FASTRAG_PURE_PYTHON_BUILD=1``, gets the interpreted package, with identical output.
``FASTRAG_PURE_PYTHON=1`` at run time makes a compiled build import the Python sources
instead (see fastrag._pure); tests/unit/test_compiled.py compares the two.

One module is C written by hand (``NATIVE``): cl100k token counting, an
accelerator the Python counter uses when it is built (see its source for why).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

COMPILED = [
    "src/fastrag/packing/_display.py",
    "src/fastrag/packing/_id_numbers.py",
    "src/fastrag/packing/blocks.py",
    "src/fastrag/packing/costs.py",
    "src/fastrag/packing/counter.py",
    "src/fastrag/packing/finish.py",
    "src/fastrag/packing/lead_in.py",
    "src/fastrag/packing/leaves.py",
    "src/fastrag/packing/merge.py",
    "src/fastrag/packing/overlap.py",
    "src/fastrag/packing/planner.py",
    "src/fastrag/packing/refinable.py",
    "src/fastrag/packing/refine.py",
    "src/fastrag/packing/render.py",
    "src/fastrag/packing/split/_site.py",
    "src/fastrag/packing/split/code.py",
    "src/fastrag/packing/split/list.py",
    "src/fastrag/packing/split/prose.py",
    "src/fastrag/packing/split/table.py",
    "src/fastrag/packing/windows.py",
    "src/fastrag/normalization/_attributes.py",
    "src/fastrag/normalization/formats/_html_blocks.py",
    "src/fastrag/normalization/formats/_html_elements.py",
    "src/fastrag/normalization/formats/_html_emphasis.py",
    "src/fastrag/normalization/formats/_html_events.py",
    "src/fastrag/normalization/formats/_html_finish.py",
    "src/fastrag/normalization/formats/_html_frames.py",
    "src/fastrag/normalization/formats/_html_generators.py",
    "src/fastrag/normalization/formats/_html_start.py",
    "src/fastrag/normalization/formats/_html_tags.py",
    "src/fastrag/normalization/formats/_html_text.py",
    "src/fastrag/normalization/formats/_html_tokens.py",
    "src/fastrag/normalization/formats/_markdown_draft.py",
    "src/fastrag/normalization/formats/_markdown_heading.py",
    "src/fastrag/normalization/formats/_markdown_offsets.py",
    "src/fastrag/normalization/formats/_markdown_segments.py",
    "src/fastrag/normalization/formats/_markdown_tree.py",
    "src/fastrag/tokenization/_pretokens.py",
    "src/fastrag/tokenization/counting.py",
]
"""The engine's hot path. Not compiled: what defines the public contract or must keep
Python's own run-time behaviour (``PackingConfig`` validates its arguments' types itself,
and a compiled class would refuse a wrong type with a bare TypeError first;
``ChunkMetadata``'s storage; the normalizer classes, whose class attributes are read on
the class), the validator (it must stay independent of the engine), and what is not hot."""


NATIVE = [
    "src/fastrag/tokenization/_cl100k_count.c",
]
"""Hand-written C modules (no Python source of the same name: the Python code that uses
one keeps its own path for when it is absent or FASTRAG_PURE_PYTHON=1 is set)."""


def _native() -> list[object]:
    return [
        Extension(
            path.removeprefix("src/").removesuffix(".c").replace("/", "."),
            [path],
            extra_compile_args=["-O2"],
        )
        for path in NATIVE
    ]


def _extensions() -> list[object]:
    if os.environ.get("FASTRAG_PURE_PYTHON_BUILD") == "1":
        return []
    try:
        from mypyc.build import mypycify

        return [
            *mypycify(COMPILED, opt_level="3", group_name="fastrag__mypyc"),
            *_native(),
        ]
    except Exception as error:  # noqa: BLE001  # a failed compile must not stop the install
        print(
            f"fastrag: building the pure-Python package ({type(error).__name__}: {error})",
            file=sys.stderr,
        )
        return []


class _OptionalBuildExt(build_ext):
    """Fall back to the pure-Python package when the C compiler fails, as it must not
    stop an install (the interpreted modules produce the same output)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001  # compilers fail in many ways
            print(f"fastrag: C build failed, using pure Python ({error})", file=sys.stderr)
            self.extensions = []


setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
