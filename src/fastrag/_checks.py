"""Constructor argument checks shared by the model clients and strategies.

``bool`` is refused where a number is expected (``True`` is an ``int`` in Python, and a
flag passed as a count is always a mistake); messages name the argument and the value.
"""

from __future__ import annotations

import math

from fastrag.exceptions import ConfigurationError

__all__ = ["finite_number", "int_at_least", "optional_int_at_least"]


def int_at_least(name: str, value: object, minimum: int) -> int:
    """``value`` if it is an int ``>= minimum``, else a ``ConfigurationError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name} must be an int >= {minimum} (got {value!r})")
    return value


def optional_int_at_least(name: str, value: object, minimum: int) -> int | None:
    """None, or ``int_at_least``."""
    return None if value is None else int_at_least(name, value, minimum)


def finite_number(name: str, value: object, *, positive: bool, unit: str = "") -> float:
    """A finite number ``> 0`` when ``positive`` else ``>= 0`` (``unit`` names it in errors)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
        or (positive and value == 0)
    ):
        bound = "> 0" if positive else ">= 0"
        what = f"a finite number of {unit}" if unit else "a finite number"
        raise ConfigurationError(f"{name} must be {what} {bound} (got {value!r})")
    return float(value)
