"""Parsing: raw file documents in, parsed documents (text + ``content_format``) out.

``default_parsers()`` routes each built-in source type to its parser; compose your own
``ParserRouter`` to add or replace one. See ``base`` for the metadata every parsed
document carries.
"""

from fastrag.ingestion.filters import SourceTypeFilter
from fastrag.ingestion.steps.parsing.base import Parsed, Parser, document_id_of
from fastrag.ingestion.steps.parsing.decoding import Decoded, decode_text
from fastrag.ingestion.steps.parsing.docling import DoclingParser
from fastrag.ingestion.steps.parsing.docx import DocxParser
from fastrag.ingestion.steps.parsing.html import HtmlParser
from fastrag.ingestion.steps.parsing.markdown import MarkdownParser
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.ingestion.steps.parsing.pptx import PptxParser
from fastrag.ingestion.steps.parsing.router import ParserRouter, default_parsers, office_filter
from fastrag.ingestion.steps.parsing.rst import RstParser
from fastrag.ingestion.steps.parsing.text import TextParser
from fastrag.ingestion.steps.parsing.xlsx import XlsxParser

__all__ = [
    "Decoded",
    "DoclingParser",
    "DocxParser",
    "HtmlParser",
    "MarkdownParser",
    "Parsed",
    "Parser",
    "ParserRouter",
    "PdfParser",
    "PptxParser",
    "RstParser",
    "SourceTypeFilter",
    "TextParser",
    "XlsxParser",
    "decode_text",
    "default_parsers",
    "document_id_of",
    "office_filter",
]
