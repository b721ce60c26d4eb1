"""``Filter[T]``: the predicate a routed step matches items with.

Any callable ``item -> bool`` is a filter — a plain function, a lambda, or an object such
as ``fastrag.ingestion.filters.ContentFormatFilter``. A filter must be pure (the same item
always gives the same answer): a router may ask it more than once per item.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["Filter"]

T_contra = TypeVar("T_contra", contravariant=True)


@runtime_checkable
class Filter(Protocol[T_contra]):
    """A pure predicate over items."""

    def __call__(self, item: T_contra, /) -> bool:
        """Whether ``item`` matches."""
        ...
