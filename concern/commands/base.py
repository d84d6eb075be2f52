"""The vocabulary's base: a command's type name, decision kind, flat shape, and its serialised form.

Every command and answer class registers itself under its `TYPE`; `dump` gives `{"type": …, fields}` and `load`
reads one back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from fact.decisions import DecisionKind

COMMANDS: dict[str, type[Command]] = {}


@dataclass(frozen=True)
class Command:
    """A command: its type name (the serialised `type`), its decision kind, and what the older flat shape added."""

    TYPE: ClassVar[str] = ""
    KIND: ClassVar[DecisionKind] = DecisionKind.direct_action
    LEGACY: ClassVar[dict[str, Any]] = {}  # keys the flat `requested` shape carried besides the fields

    def flat(self) -> dict[str, Any]:
        """The flat shape of a decision's `requested` entry: the fields that are set, and what the shape added."""
        values = {k: v for k, v in dump(self).items() if k != "type" and v is not None}
        return {**self.LEGACY, **values}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("TYPE"):
            COMMANDS[cls.TYPE] = cls


def dump(command: Command) -> dict[str, Any]:
    """The stable serialised form: `type` and every field (tuples as lists)."""
    values = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(command).items()}
    return {"type": command.TYPE, **values}


def load(data: dict[str, Any]) -> Command:
    """The command a serialised form names; ValueError for an unknown type or fields it does not have."""
    cls = COMMANDS.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"unknown command type {data.get('type')!r}")
    tuples = {f.name for f in fields(cls) if str(f.type).startswith("tuple")}
    unknown = set(data) - {f.name for f in fields(cls)} - {"type"}
    if unknown:
        raise ValueError(f"{cls.TYPE} has no field {', '.join(sorted(unknown))}")
    values = {k: tuple(v) if k in tuples and isinstance(v, list) else v for k, v in data.items() if k != "type"}
    return cls(**values)
