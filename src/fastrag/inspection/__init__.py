"""See one document's chunks: where each boundary fell, and what each chunk carries.

``inspect_file`` parses and chunks one file with ``fastrag ingest``'s own steps;
``render_html`` turns the result into one self-contained page (``fastrag inspect FILE
--html OUT.html``), ``render_table`` into terminal tables, ``summarize`` into the figures
both show.
"""

from fastrag.inspection.html import CONTENT_SECURITY_POLICY, render_html
from fastrag.inspection.load import ChunkingSettings, Inspection, inspect_file
from fastrag.inspection.summary import InspectionSummary, nearest_rank, summarize
from fastrag.inspection.terminal import render_table

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "ChunkingSettings",
    "Inspection",
    "InspectionSummary",
    "inspect_file",
    "nearest_rank",
    "render_html",
    "render_table",
    "summarize",
]
