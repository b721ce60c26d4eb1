"""ChunkerRouter: dispatch each document to the chunker registered for it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from fastrag.ingestion.steps.chunking.base import Chunker
from fastrag.models import Document
from fastrag.pipeline import ExecutionContext, RoutedStep

__all__ = ["ChunkerRouter"]


class ChunkerRouter(RoutedStep[Document], Chunker):
    """Route each document to the first matching ``.route`` chunker, or ``.default``.

    Holds no chunking logic of its own: a document matching no route with no default
    registered is skipped with an ``ItemFailed``. A routed document is cached under the
    matched chunker's configuration, and a chunker without its own cache or policy
    inherits the router's.

    ::

        chunker = (
            ChunkerRouter(cache=cache)
            .route(ContentFormatFilter(include_formats=["markdown"]), HeadingChunker())
            .default(RecursiveCharacterTextSplitter(chunk_size=500))
        )
    """

    routing_requires_content: bool = False
    """Unknown routing overrides conservatively require complete inputs. Opt out only when
    built-in selection uses identity/metadata alone."""

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        """Forward resolved output validation to the selected child chunker."""
        resolution = self._dispatch_route(item, context)
        if resolution is not None:
            await resolution.step.validate_output(item, produced, resolution.context)

    def split(self, document: Document) -> Iterator[str]:
        """Never called: ``RoutedStep.transform`` shadows ``Chunker.transform``.

        Defined only because ``Chunker`` declares ``split`` abstract.
        """
        raise NotImplementedError(
            f"{self.name}.split() is never called: a router dispatches each document to "
            "the chunker its routes select; call that chunker's split() instead"
        )
