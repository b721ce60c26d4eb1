"""Every command module under ``fastrag.cli`` is reachable from ``fastrag``."""

from __future__ import annotations

from pathlib import Path

import fastrag.cli
from fastrag.cli.main import COMMANDS, build_parser

CLI = Path(fastrag.cli.__file__).parent


def test_every_command_module_is_registered() -> None:
    modules = {
        f"fastrag.cli.{path.stem}"
        for path in CLI.glob("*.py")
        if not path.stem.startswith("_") and path.stem != "main"
    }
    assert modules == set(COMMANDS)


def test_the_parser_offers_every_command() -> None:
    parser = build_parser()
    for command in ("ingest", "validate", "inspect", "search", "eval"):
        arguments = parser.parse_args([command, *_minimal(command)])
        assert arguments.command == command


def _minimal(command: str) -> list[str]:
    return {
        "ingest": ["in", "-o", "out.jsonl"],
        "validate": ["out.jsonl", "--source-dir", "in"],
        "inspect": ["file.md"],
        "search": ["query", "--store", "milvus:x.db", "--tenant", "t"],
        "eval": ["--dataset", "chroma"],
    }[command]
