"""Run ``fastrag inspect`` through its module, as ``fastrag.cli.main`` does for a command."""

from __future__ import annotations

import argparse

from fastrag.cli import inspect as command
from fastrag.exceptions import FastragError


def run_inspect(*argv: str) -> int:
    """The exit status of ``fastrag inspect ARGV`` (a ``FastragError`` is status 1)."""
    parser = argparse.ArgumentParser(prog="fastrag inspect")
    command.configure(parser)
    try:
        arguments = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        return command.run(arguments)
    except FastragError:
        return 1
