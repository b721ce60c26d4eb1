"""``fastrag``: the entry point, dispatching to one module per subcommand.

A command module exposes ``NAME``, ``HELP``, ``configure(parser)`` (adds its arguments)
and ``run(arguments) -> int``. ``COMMANDS`` lists the modules; each is imported only to
build the parser, and nothing optional is imported before a command runs. Exit status:
0 success, 1 the command found problems (or failed), 2 usage errors (argparse's
convention), 3 ``ingest`` finished but some file failed or was quarantined (``--fail-on``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Final

from fastrag._collector import tune_for_batch_work
from fastrag.exceptions import FastragError

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: Final = (
    "fastrag.cli.ingest",
    "fastrag.cli.validate",
    "fastrag.cli.inspect",
    "fastrag.cli.search",
    "fastrag.cli.eval",
)
"""Command modules, in help order; a new command adds its module here."""

EXIT_OK: Final = 0
EXIT_PROBLEMS: Final = 1
EXIT_USAGE: Final = 2


def _commands() -> list[ModuleType]:
    return [importlib.import_module(name) for name in COMMANDS]


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command module."""
    parser = argparse.ArgumentParser(
        prog="fastrag",
        description="Structure-aware document ingestion and chunking for retrieval.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _commands():
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.configure(sub)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fastrag`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    try:
        arguments = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    tune_for_batch_work()  # the command is the application: see fastrag._collector
    try:
        status: int = arguments._run(arguments)
    except FastragError as error:
        print(f"fastrag {arguments.command}: error: {error}", file=sys.stderr)
        return EXIT_PROBLEMS
    return status


if __name__ == "__main__":
    sys.exit(main())
