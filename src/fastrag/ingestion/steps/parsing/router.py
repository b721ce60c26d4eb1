"""``ParserRouter``: send each raw file to the parser for its ``source_type``.

``default_parsers()`` is the built-in table — one ``route(SourceTypeFilter(...), parser)``
per text format. New formats slot in by one more ``route``: issue 6's PDF and Office
parsers are ``router.route(SourceTypeFilter(include=["pdf"]), PdfParser())`` and
``router.route(office_filter, DoclingParser(...))``, and discovery learns they are
parsable from ``router.source_types``. A file no route accepts is skipped with an
``ItemFailed`` naming it (``NoRouteError``), never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastrag.ingestion.filters import SourceTypeFilter
from fastrag.ingestion.pages import DEFAULT_MAX_PAGES
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES
from fastrag.ingestion.steps.parsing.base import Parsed, Parser
from fastrag.ingestion.steps.parsing.docx import DocxParser
from fastrag.ingestion.steps.parsing.html import HtmlParser
from fastrag.ingestion.steps.parsing.markdown import MarkdownParser
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.ingestion.steps.parsing.pptx import PptxParser
from fastrag.ingestion.steps.parsing.rst import RstParser
from fastrag.ingestion.steps.parsing.text import TextParser
from fastrag.ingestion.steps.parsing.xlsx import XlsxParser
from fastrag.models import Document
from fastrag.pipeline import CacheSetting, ExecutionContext, Policy, RoutedStep

__all__ = ["ParserRouter", "default_parsers", "office_filter"]

office_filter = SourceTypeFilter(include=["docx", "pptx", "xlsx"])
"""Matches Word, PowerPoint and Excel files (the seeds' ``office_filter``)."""


class ParserRouter(RoutedStep[Document], Parser):
    """Route each raw document to the first matching ``.route`` parser, or ``.default``.

    Holds no parsing logic: a routed file is cached under the matched parser's
    configuration, and a parser without its own cache or policy inherits the router's.

    ::

        parser = (
            ParserRouter(cache=cache)
            .route(SourceTypeFilter(include=["markdown"]), MarkdownParser())
            .default(TextParser())
        )
    """

    routing_requires_content: bool = False
    """``SourceTypeFilter`` reads only metadata; raw documents have no content anyway."""

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        """Forward output validation to the selected parser."""
        resolution = self._dispatch_route(item, context)
        if resolution is not None:
            await resolution.step.validate_output(item, produced, resolution.context)

    @property
    def source_types(self) -> frozenset[str] | None:
        """The source types some route accepts, or None when that cannot be known.

        None when a default is registered (everything is accepted) or a route's filter is
        not a ``SourceTypeFilter`` with an include list (an arbitrary predicate).
        """
        if self.default_step is not None:
            return None
        accepted: set[str] = set()
        for filter_rule, step in self.routes:
            if not isinstance(filter_rule, SourceTypeFilter) or filter_rule.include is None:
                return None
            types = filter_rule.include - filter_rule.exclude
            if isinstance(step, ParserRouter):
                nested = step.source_types
                types = types if nested is None else types & nested
            accepted |= types
        return frozenset(accepted)

    def parse(self, data: bytes, source: Document) -> Parsed:
        """Never called: ``RoutedStep.transform`` dispatches to the selected parser."""
        raise NotImplementedError(
            f"{self.name}.parse() is never called: a router dispatches each file to the "
            "parser its routes select; call that parser's parse() instead"
        )


def default_parsers(
    *,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_pages: int = DEFAULT_MAX_PAGES,
    pdf_password: str | None = None,
    cache: CacheSetting = None,
    policy: Policy | None = None,
) -> ParserRouter:
    """The built-in router, by ``source_type``: text, Markdown, reStructuredText, HTML,
    PDF, DOCX, PPTX and XLSX (PDF needs ``fastrag-ai[pdf]``, the office parsers
    ``fastrag-ai[office]``; without it such a file fails with an error naming the extra).
    ``max_pages`` and ``pdf_password`` (a secret, never part of any identity) go to
    ``PdfParser``.

    No default route: a file of any other type is skipped with an ``ItemFailed`` naming
    it. ``cache`` and ``policy`` are inherited by every parser.
    """
    table: tuple[tuple[str, Parser], ...] = (
        ("text", TextParser(max_bytes=max_bytes)),
        ("markdown", MarkdownParser(max_bytes=max_bytes)),
        ("rst", RstParser(max_bytes=max_bytes)),
        ("html", HtmlParser(max_bytes=max_bytes)),
        ("pdf", PdfParser(max_bytes=max_bytes, max_pages=max_pages, password=pdf_password)),
        ("docx", DocxParser(max_bytes=max_bytes)),
        ("pptx", PptxParser(max_bytes=max_bytes)),
        ("xlsx", XlsxParser(max_bytes=max_bytes)),
    )
    router = ParserRouter(cache=cache, policy=policy)
    for source_type, parser in table:
        router.route(SourceTypeFilter(include=[source_type]), parser)
    return router
