"""Argument checks shared by the Python API and the command line: one wording for each refusal,
raised as the caller's error class (``SimulationError``, ``TuneError``...) so that its ``except``
clauses hold. A whole number is a Python or numpy integer, never a bool, a float or text.

>>> whole(np.int64(0), "games", low=1, high=10)
Traceback (most recent call last):
...
smsim.errors.SimulationError: games must be a whole number from 1 to 10, not 0
"""

from __future__ import annotations

import math
from decimal import Decimal
from numbers import Real

import numpy as np

from smsim.errors import SimulationError


def _bound(n: int) -> str:  # 1,000,000; the top of an int type as 2**63 - 1
    return f"2**{n.bit_length()} - 1" if n > 2**31 and not (n + 1) & n else f"{n:,}"


def _shown(value) -> str:  # one line: a whole number as written (a huge one as 1.23e30), else its repr
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, int) and not isinstance(value, bool):
        mantissa, _, power = f"{Decimal(value):.2e}".partition("e")  # beyond any float too
        return f"{value:,}" if abs(value) < 10**15 else f"{mantissa.rstrip('0').rstrip('.')}e{int(power)}"
    return repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."


def whole(value, name: str, *, low: int | None = None, high: int | None = None, error=SimulationError) -> int:
    """``value`` as an int: a Python or numpy integer from ``low`` to ``high`` (either may be open)."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        bounds = (
            f" from {_bound(low)} to {_bound(high)}"
            if low is not None and high is not None
            else f" of at least {_bound(low)}"
            if low is not None
            else f" of at most {_bound(high)}"
            if high is not None
            else ""
        )
        raise error(f"{name} must be a whole number{bounds}, not {_shown(value)}")
    return int(value)


def int_or_text(text: str) -> int | str:
    """Text as the int it spells (``int``'s forms), else the text itself, for ``whole`` to refuse."""
    try:
        return int(text)
    except ValueError:
        return text


def threads(value, name: str = "threads", *, error=SimulationError) -> int | None:
    """A thread count: None (every core) or a whole number of at least 1."""
    return None if value is None else whole(value, name, low=1, error=error)


def positive(
    value, name: str, *, below: float | None = None, most: float | None = None, error=SimulationError
) -> float:
    """A finite number above 0, and below ``below`` or at most ``most`` where given (a share: 1)."""
    real = isinstance(value, Real) and not isinstance(value, (bool, np.bool_)) and math.isfinite(value)
    if not (real and value > 0 and (below is None or value < below) and (most is None or value <= most)):
        bound = f" and below {below:g}" if below is not None else f" and at most {most:g}" if most is not None else ""
        raise error(f"{name} must be a number above 0{bound}, not {_shown(value)}")
    return float(value)
