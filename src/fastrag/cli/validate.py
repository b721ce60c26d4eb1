"""``fastrag validate OUTPUT.jsonl --source-dir INPUT_DIR``: re-check an ingestion output.

Prints every problem (record number, chunk id, source file, rule, detail) and a summary
line; exit status 0 when the file is clean, 1 when anything is wrong, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Final

from fastrag.cli._options import TOKENIZER_HELP, tokenizer_from_option
from fastrag.ingestion.validate import validate_jsonl

__all__ = ["HELP", "NAME", "configure", "run"]

NAME: Final = "validate"
HELP: Final = "re-check a JSONL output against the record contract and its source files"


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
    parser.add_argument("output", metavar="OUTPUT.jsonl", help="the JSONL file to check")
    parser.add_argument(
        "--source-dir", required=True, metavar="INPUT_DIR", help="the folder that was ingested"
    )
    parser.add_argument(
        "--tokenizer",
        default=None,
        help=f"recount with this tokenizer instead of the one each record names: {TOKENIZER_HELP}",
    )
    parser.add_argument(
        "--max-tokens",
        type=_positive,
        default=None,
        help="hold every chunk to this budget (default: the budget recorded in each record)",
    )


def run(arguments: argparse.Namespace) -> int:
    """Validate, print problems to stdout and a summary; 0 clean, 1 problems."""
    tokenizer = None if arguments.tokenizer is None else tokenizer_from_option(arguments.tokenizer)
    report = validate_jsonl(
        arguments.output,
        arguments.source_dir,
        tokenizer=tokenizer,
        max_tokens=arguments.max_tokens,
    )
    out = sys.stdout
    for problem in report.problems:
        print(f"{arguments.output}: {problem}", file=out)
    omitted = report.problem_count - len(report.problems)
    if omitted:
        print(f"… and {omitted} more problems", file=out)
    for note in report.notes:
        print(f"note: {note}", file=out)
    verdict = "OK" if report.ok else f"{report.problem_count} problems"
    print(
        f"{arguments.output}: {report.records} records, {report.documents} documents: {verdict}",
        file=out,
    )
    return 0 if report.ok else 1
