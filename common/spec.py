"""Tuning specs: frozen dataclasses whose fields carry their own bounds.

Every tuning number in the game lives in a config file and arrives in code as a
field of a frozen dataclass declared with :func:`tuning`. The dataclass checks
itself when it is made (``validate_spec`` from ``__post_init__``), and
:func:`build_spec` makes one from a plain table (a parsed TOML section), so a
bad file is reported by the key that is wrong, not by a traceback.

Supported field types: ``float``, ``int``, ``bool``, ``str``, another spec
dataclass (a TOML sub-table), ``tuple[float, ...]`` and ``tuple[Spec, ...]``
(an array of tables).
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any

KMH_PER_MPS = 3.6
"""km/h in one m/s: a unit conversion, for people-facing numbers (config, HUD)."""


class SpecError(ValueError):
    """A value in a spec is wrong. ``key`` is its dotted path inside the table."""

    def __init__(self, key: str, value: Any, expected: str):
        self.key = key
        self.value = value
        self.expected = expected
        super().__init__(f"{key} = {value!r}: expected {expected}")


def tuning(doc: str, *, minimum: float | None = None, maximum: float | None = None,
           choices: tuple = (), length: tuple[int, int] | None = None,
           default: Any = dataclasses.MISSING) -> Any:
    """A documented, bounded spec field.

    ``minimum``/``maximum`` bound numbers (inclusive) and each item of a tuple
    of numbers; ``choices`` lists the allowed strings; ``length`` bounds the
    item count of a tuple as (least, most).
    """
    metadata = {"doc": doc, "minimum": minimum, "maximum": maximum,
                "choices": tuple(choices), "length": length}
    return dataclasses.field(default=default, metadata=metadata)


def _describe(field: dataclasses.Field, kind: str) -> str:
    low, high = field.metadata.get("minimum"), field.metadata.get("maximum")
    if low is not None and high is not None:
        return f"{kind} in [{low}, {high}]"
    if low is not None:
        return f"{kind} >= {low}"
    if high is not None:
        return f"{kind} <= {high}"
    return kind


def _check_number(field: dataclasses.Field, key: str, value: Any, kind: type) -> None:
    name = "a number" if kind is float else "an integer"
    acceptable = (int, float) if kind is float else (int,)
    if isinstance(value, bool) or not isinstance(value, acceptable):
        raise SpecError(key, value, _describe(field, name))
    if not math.isfinite(value):
        raise SpecError(key, value, _describe(field, "a finite " + name.split()[-1]))
    low, high = field.metadata.get("minimum"), field.metadata.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        raise SpecError(key, value, _describe(field, name))


def _check_value(field: dataclasses.Field, field_type: Any, key: str, value: Any) -> None:
    if field_type in (float, int):
        _check_number(field, key, value, field_type)
    elif field_type is bool:
        if not isinstance(value, bool):
            raise SpecError(key, value, "true or false")
    elif field_type is str:
        choices = field.metadata.get("choices") or ()
        if not isinstance(value, str) or (choices and value not in choices):
            expected = "one of " + ", ".join(repr(c) for c in choices) if choices else "a string"
            raise SpecError(key, value, expected)
    elif isinstance(field_type, type) and dataclasses.is_dataclass(field_type):
        if not isinstance(value, field_type):
            raise SpecError(key, value, "a table")
    elif typing.get_origin(field_type) is tuple:
        item_type = typing.get_args(field_type)[0]
        if not isinstance(value, tuple):
            raise SpecError(key, value, "a list")
        bounds = field.metadata.get("length")
        if bounds and not bounds[0] <= len(value) <= bounds[1]:
            count = (f"{bounds[0]}" if bounds[0] == bounds[1]
                     else f"{bounds[0]} to {bounds[1]}")
            raise SpecError(key, value, f"a list of {count} items")
        for index, item in enumerate(value):
            _check_value(field, item_type, f"{key}[{index}]", item)
    else:  # pragma: no cover - a spec declared with an unsupported type
        raise TypeError(f"unsupported spec field type {field_type!r} for {key}")


def validate_spec(spec: Any, prefix: str = "") -> None:
    """Check every field of ``spec`` against its declared type and bounds."""
    hints = typing.get_type_hints(type(spec))
    for field in dataclasses.fields(spec):
        _check_value(field, hints[field.name], prefix + field.name, getattr(spec, field.name))


def _convert(field: dataclasses.Field, field_type: Any, key: str, value: Any) -> Any:
    """Turn a parsed TOML value into the field's Python type (tables to specs)."""
    if isinstance(field_type, type) and dataclasses.is_dataclass(field_type):
        if not isinstance(value, dict):
            raise SpecError(key, value, "a table")
        return build_spec(field_type, value, prefix=key + ".")
    if typing.get_origin(field_type) is tuple:
        if not isinstance(value, list):
            raise SpecError(key, value, "a list")
        item_type = typing.get_args(field_type)[0]
        return tuple(_convert(field, item_type, f"{key}[{index}]", item)
                     for index, item in enumerate(value))
    if field_type is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


class _Missing:
    """The value shown for a required key that is absent."""

    def __repr__(self) -> str:
        return "(missing)"


MISSING = _Missing()


def _expected_kind(field: dataclasses.Field, field_type: Any) -> str:
    """What a field takes, in words (for a key that is missing)."""
    if field_type is float:
        return _describe(field, "a number")
    if field_type is int:
        return _describe(field, "an integer")
    if field_type is bool:
        return "true or false"
    if field_type is str:
        choices = field.metadata.get("choices") or ()
        return "one of " + ", ".join(repr(c) for c in choices) if choices else "a string"
    if dataclasses.is_dataclass(field_type):
        return "a table"
    return "a list"


def build_spec(cls: type, table: dict, prefix: str = "") -> Any:
    """Make a ``cls`` spec from a parsed table, rejecting unknown and missing keys."""
    if not isinstance(table, dict):
        raise SpecError(prefix.rstrip(".") or "(top level)", table, "a table")
    hints = typing.get_type_hints(cls)
    fields = {field.name: field for field in dataclasses.fields(cls)}
    for key in table:
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise SpecError(prefix + key, table[key], f"no such key (known: {known})")
    values = {}
    for name, field in fields.items():
        key = prefix + name
        if name not in table:
            if field.default is dataclasses.MISSING:
                raise SpecError(key, MISSING, _expected_kind(field, hints[name])
                                + " (this key is required)")
            continue
        values[name] = _convert(field, hints[name], key, table[name])
    for name, value in values.items():
        _check_value(fields[name], hints[name], prefix + name, value)
    try:
        return cls(**values)
    except SpecError as error:  # a cross-field check in the spec's __post_init__
        raise SpecError(prefix + error.key, error.value, error.expected) from None


class Spec:
    """Base for spec dataclasses: validates every field when made."""

    def __post_init__(self) -> None:
        validate_spec(self)


def least_most(doc: str, minimum: float, maximum: float) -> Any:
    """A range field: [least, most], each within the bounds."""
    return tuning(doc + " [least, most]", minimum=minimum, maximum=maximum, length=(2, 2))
