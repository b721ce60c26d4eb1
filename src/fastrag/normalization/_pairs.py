"""The mark of an attribute whose pairs are kept flat (``PairsKey``).

A module of its own, interpreted: ``_attributes`` (compiled) marks keys with it and
``model`` reads them back, and a compiled class cannot subclass ``str``.
"""

from __future__ import annotations

__all__ = ["PairsKey"]


class PairsKey(str):
    """An attribute key whose value, a tuple of pairs, is kept flat: ``(a, b, c, d)``
    for ``((a, b), (c, d))``.

    Why: a leaf's links and images are tuples of ``(text, target)`` pairs, and a tuple
    per pair was 0.28x the input of 10 MB of Markdown (most of it changelog links).
    The key carries the mark, not the value: one key per distinct set of keys (they are
    shared), nothing per node, and the flat tuple holds only strings, so the cyclic
    collector stops watching it (a tuple holding a marker object would stay tracked).
    Equal to the plain key; no caller's key is of this class, so nothing is misread,
    and it pickles as its class and value.
    """

    __slots__ = ()
