"""A sweep's axes as the points they span: each point a dict of dotted parameter overrides."""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def points(axes: Sequence[tuple[str, Sequence]]) -> list[dict]:
    """The product of the axes as dotted override dicts (``[{}]`` without axes).

    An axis named ``"a+b"`` is one axis of linked parameters: each value sets both ``a`` and
    ``b`` (e.g. the ch4 flag sweep, where both preemption flags share one probability).
    """
    if not axes:
        return [{}]
    return [{key: value for name, value in combo for key in name.split("+")}
            for combo in itertools.product(
                *[[(name, value) for value in values] for name, values in axes])]


def axis_value(setting: dict, name: str):
    """The value an axis took at a point's ``setting`` (for linked ``a+b``, the shared one)."""
    return setting.get(name, setting.get(name.split("+")[0]))
