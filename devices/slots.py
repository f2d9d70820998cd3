"""Fast constructors for frozen slotted dataclasses: the values built for every frame, report and state.

A frozen dataclass's `__init__` sets each field through `object.__setattr__`; a frame decoded, a report read
or a state folded for every event pays that on each. These build the very same instance with plain stores.
Shared by the device layer and the hub (which may import devices; devices never import the hub).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any


def slot_constructor(cls: type) -> Callable[..., Any]:
    """`cls(*every_field)` for a frozen slotted dataclass without `__post_init__`, setting each slot directly.

    The generated `__init__` of a frozen dataclass goes through `object.__setattr__` once per field; states
    built for every event (a match, a rally) are made several times faster this way, with the same result.
    """
    names = [f.name for f in fields(cls)]
    return slot_builder(cls, ", ".join(names), {name: name for name in names})


def slot_builder(
    cls: type, params: str, values: dict[str, str], namespace: dict[str, Any] | None = None
) -> Callable[..., Any]:
    """A generated `def _build(<params>)` returning a `cls` whose every field is set to its expression in
    `values` (Python source, over the parameters and `namespace`), as the dataclass `__init__` would set it.

    For a frozen slotted dataclass without `__post_init__`. The instance is filled in as an instance of a
    plain class with the very same slots and no `__init__` (so each field is one plain attribute store, not
    a call through `object.__setattr__` or a slot descriptor) and then given its class; Python allows that
    assignment only between classes of the same layout, which is checked here once. Several times faster
    for the states the reducers build on every event, with an equal result.
    """
    names = [f.name for f in fields(cls)]
    assert set(values) == set(names), f"{cls.__name__}: every field needs a value"
    env: dict[str, Any] = {**(namespace or {}), "_new": object.__new__, "_cls": cls}
    twin = type(f"_{cls.__name__}Slots", (), {"__slots__": tuple(cls.__slots__)})  # type: ignore[attr-defined]
    try:
        probe = object.__new__(twin)
        probe.__class__ = cls  # the layouts must agree, or Python refuses
        env["_twin"] = twin
        body = "".join(f"    new.{n} = {values[n]}\n" for n in names)
        source = f"def _build({params}):\n    new = _twin()\n{body}    new.__class__ = _cls\n    return new\n"
    except TypeError:  # not the same layout (a base class with slots of its own): set each slot directly
        for name in names:
            env[f"_set_{name}"] = getattr(cls, name).__set__
        body = "".join(f"    _set_{n}(new, {values[n]})\n" for n in names)
        source = f"def _build({params}):\n    new = _new(_cls)\n{body}    return new\n"
    exec(source, env)
    return env["_build"]  # type: ignore[no-any-return]
