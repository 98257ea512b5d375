"""Declarative scenario parameters: one definition drives validation, JSON, forms and docs.

A scenario config is a frozen dataclass whose fields are declared with :func:`param` (scalars)
or :func:`group` (nested dataclasses and lists of them). :func:`from_dict` builds and validates
one from plain JSON data, naming the offending parameter and its allowed range on error;
:func:`to_dict` is its inverse; :func:`describe` lists every parameter with unit, range and help
for the web form and the API.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from dataclasses import MISSING, dataclass, field
from typing import Any

from .errors import ScenarioError


@dataclass(frozen=True)
class ParamInfo:
    unit: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    help: str = ""
    advanced: bool = False
    label: str = ""
    min_exclusive: bool = False
    min_items: int | None = None
    max_items: int | None = None


def param(default, *, unit="", min=None, max=None, choices=None, help="", advanced=False,
          label="", min_exclusive=False, min_items=None, max_items=None):
    """A scalar parameter (int, float, bool, str, None-able, or a list of them).

    For lists, ``min``/``max``/``choices`` apply to every item and ``min_items``/``max_items``
    to the length.
    """
    info = ParamInfo(unit, min, max, tuple(choices) if choices else None, help, advanced, label,
                     min_exclusive, min_items, max_items)
    if isinstance(default, list):
        default = tuple(default)  # configs are frozen; from_dict also yields tuples
    if isinstance(default, dict):
        return field(default_factory=lambda: json.loads(json.dumps(default)),
                     metadata={"param": info})
    return field(default=default, metadata={"param": info})


def group(factory, *, help="", advanced=False, label="", min_items=None, max_items=None):
    """A nested dataclass or a list/tuple of them."""
    info = ParamInfo(help=help, advanced=advanced, label=label, min_items=min_items,
                     max_items=max_items)
    return field(default_factory=factory, metadata={"param": info})


def _info(f: dataclasses.Field) -> ParamInfo:
    return f.metadata.get("param", ParamInfo())


def _range_text(info: ParamInfo) -> str:
    if info.choices:
        return "one of " + ", ".join(map(str, info.choices))
    lo, hi = info.min, info.max
    if lo is not None and hi is not None:
        return f"{'>' if info.min_exclusive else '>='} {lo} and <= {hi}"
    if lo is not None:
        return f"{'>' if info.min_exclusive else '>='} {lo}"
    if hi is not None:
        return f"<= {hi}"
    return ""


def _unwrap_optional(tp):
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return args[0], True
    return tp, False


def _convert_scalar(tp, value, name: str, info: ParamInfo):
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise ScenarioError(name, f"must be true or false, got {value!r}")
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ScenarioError(name, f"must be an integer, got {value!r}")
        if isinstance(value, float) and not value.is_integer():
            raise ScenarioError(name, f"must be an integer, got {value!r}")
        value = int(value)
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ScenarioError(name, f"must be a number, got {value!r}")
        try:
            value = float(value)
        except OverflowError:  # an integer past the float range (JSON has no limit)
            value = math.inf
        if not math.isfinite(value):
            raise ScenarioError(name, f"must be a finite number, got {value!r}")
    elif tp is str and not isinstance(value, str):
        raise ScenarioError(name, f"must be a string, got {value!r}")
    if info.choices is not None and value not in info.choices:
        raise ScenarioError(name, f"must be {_range_text(info)}; got {value!r}")
    if tp in (int, float):
        too_low = info.min is not None and (value <= info.min if info.min_exclusive
                                            else value < info.min)
        too_high = info.max is not None and value > info.max
        if too_low or too_high:
            raise ScenarioError(name, f"must be {_range_text(info)}; got {value!r}")
    return value


def _convert(tp, value, name: str, info: ParamInfo):
    tp, optional = _unwrap_optional(tp)
    if value is None:
        if optional:
            return None
        raise ScenarioError(name, "is required")
    if dataclasses.is_dataclass(tp):
        return from_dict(tp, value, prefix=name)
    origin = typing.get_origin(tp)
    if origin in (list, tuple):
        args = typing.get_args(tp)
        item_tp = args[0] if args else Any
        if not isinstance(value, (list, tuple)):
            raise ScenarioError(name, f"must be a list, got {type(value).__name__}")
        if info.min_items is not None and len(value) < info.min_items:
            raise ScenarioError(name, f"needs at least {info.min_items} items, got {len(value)}")
        if info.max_items is not None and len(value) > info.max_items:
            raise ScenarioError(name, f"allows at most {info.max_items} items, got {len(value)}")
        item_info = dataclasses.replace(info, min_items=None, max_items=None)
        items = [_convert(item_tp, v, f"{name}.{i}", item_info) for i, v in enumerate(value)]
        return tuple(items)
    if tp is Any:
        return value
    return _convert_scalar(tp, value, name, info)


def from_dict(cls, data: Any, prefix: str = ""):
    """Build a validated ``cls`` from JSON-like data; unknown keys are errors."""
    if isinstance(data, cls):
        data = to_dict(data)
    if not isinstance(data, dict):
        raise ScenarioError(prefix or cls.__name__, f"must be an object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        where = f"{prefix}.{unknown[0]}" if prefix else unknown[0]
        raise ScenarioError(where, "is not a parameter of this scenario "
                                   f"(known: {', '.join(sorted(fields))})")
    kwargs = {}
    for name, f in fields.items():
        dotted = f"{prefix}.{name}" if prefix else name
        if name in data:
            kwargs[name] = _convert(hints[name], data[name], dotted, _info(f))
        elif f.default is MISSING and f.default_factory is MISSING:
            raise ScenarioError(dotted, "is required")
    obj = cls(**kwargs)
    check = getattr(obj, "validate", None)
    if check is not None:
        check()  # cross-field rules; raise ScenarioError naming the field
    return obj


def to_dict(obj) -> Any:
    """Plain JSON data of a config dataclass (tuples become lists)."""
    if dataclasses.is_dataclass(obj):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {k: to_dict(v) for k, v in obj.items()}
    return obj


def parse_value(text: str) -> Any:
    """A ``--set`` value: JSON when it parses (numbers, true/false, lists), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def whole_number(text: Any, digits: int = 12) -> int | None:
    """``text`` as a whole number when it is 1 to ``digits`` ASCII digits, else None: typed
    input (a URL, a form, a flag) reaches ``int`` only so. ``str.isdigit`` also passes "²",
    which ``int`` refuses, and other scripts' digits, and ``int`` refuses over 4,300 digits."""
    text = str(text)
    return int(text) if 0 < len(text) <= digits and text.isascii() and text.isdigit() else None


def set_dotted(data: dict, dotted: str, value: Any) -> dict:
    """Set ``a.b.2.c``-style keys in nested dict/list data (list items by index)."""
    parts = dotted.split(".")
    node = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, list):
            key: Any = whole_number(part)
            if key is None or key >= len(node):
                raise ScenarioError(dotted, f"index {part!r} is out of range")
        elif isinstance(node, dict):
            if part not in node:
                raise ScenarioError(dotted, "is not a parameter of this scenario")
            key = part
        else:
            raise ScenarioError(dotted, "is not a parameter of this scenario")
        if last:
            node[key] = value
        else:
            node = node[key]
    return data


@dataclass(frozen=True)
class Declared:
    """One scalar or JSON parameter as its config declares it: its dotted name, its type (an
    optional one unwrapped), its default and declaration, and the declaration of the group it
    sits in (None at the top level)."""

    name: str
    type: Any
    optional: bool
    default: Any
    info: ParamInfo
    group: ParamInfo | None = None


def parameters(cls, prefix: str = "", group: ParamInfo | None = None):
    """Every parameter of ``cls``, nested groups flattened into dotted names, in field order."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        info = _info(f)
        tp, optional = _unwrap_optional(hints[f.name])
        name = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(tp):
            yield from parameters(tp, prefix=f"{name}.", group=info)
            continue
        default = f.default if f.default is not MISSING else (
            f.default_factory() if f.default_factory is not MISSING else None)
        yield Declared(name, tp, optional, default, info, group)


def describe(cls) -> list[dict]:
    """Every parameter of ``cls`` (flattened; groups as JSON fields) for forms, API and docs.

    ``label`` is the declared label (the dotted name when none is declared) and ``group`` the
    declared label of the group the parameter belongs to ("" at the top level)."""
    out = []
    for p in parameters(cls):
        tp, info = p.type, p.info
        if typing.get_origin(tp) in (list, tuple) or tp is Any:
            kind = "json"
        else:
            kind = {bool: "bool", int: "int", float: "float", str: "str"}.get(tp, "json")
        out.append({
            "name": p.name,
            "type": kind,
            "optional": p.optional,
            "default": to_dict(p.default),
            "unit": info.unit,
            "min": info.min,
            "max": info.max,
            "choices": list(info.choices) if info.choices else None,
            "range": _range_text(info),
            "min_exclusive": info.min_exclusive,
            "help": info.help,
            "label": info.label or p.name,
            "group": (p.group.label or p.name.rsplit(".", 1)[0]) if p.group else "",
            "advanced": info.advanced or kind == "json",
        })
    return out


def merge(base: dict, overlay: dict) -> dict:
    """``overlay`` on top of ``base``, recursing into nested parameter groups."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def with_overrides(params: dict, overrides: dict) -> dict:
    """A copy of ``params`` with dotted ``overrides`` applied (a sweep point's parameters)."""
    out = merge({}, params)
    for key, value in overrides.items():
        set_dotted(out, key, value)
    return out
