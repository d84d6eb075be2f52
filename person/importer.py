"""Read persons from YAML or CSV and upsert them idempotently, one transaction per row."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from kernel import channel_names
from kernel.context import AppContext
from kernel.errors import DeputyError
from person import service
from person.models import PersonCreate

CSV_LIST_SEPARATOR = "|"
PERSON_COLUMNS = ("person_id", "display_name", "aliases", "role", "manager_id", "timezone", "locale")
POLICY_COLUMNS = ("preferred_channel", "max_proactive_contacts_per_day", "follow_up_stretch")
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


def csv_columns() -> tuple[str, ...]:
    """The CSV columns: the person's, each installed platform's binding columns (user id, chat id), the policy's."""
    bindings = [column for p in channel_names.platforms() for column in p.binding_columns]
    return (*PERSON_COLUMNS, *bindings, *POLICY_COLUMNS)


class _YamlLoader(yaml.SafeLoader):
    """SafeLoader without YAML 1.1 base-60 numbers: an unquoted `23:00` stays the text "23:00", not 1380."""


_YamlLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"),
)
_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


@dataclass
class RowResult:
    """Outcome of one input row: `created`, `updated`, `unchanged` or `error`."""

    row: int
    person_id: str | None
    outcome: str
    message: str = ""


def _csv_row(raw: dict[str, str]) -> dict[str, Any]:
    """Flat CSV columns → the nested person shape of `POST /v1/persons`."""
    row = {k.strip(): (v or "").strip() for k, v in raw.items() if k}
    person: dict[str, Any] = {
        k: row[k] for k in ("person_id", "display_name", "role", "manager_id", "timezone", "locale") if row.get(k)
    }
    if row.get("aliases"):
        person["aliases"] = [a.strip() for a in row["aliases"].split(CSV_LIST_SEPARATOR) if a.strip()]
    platforms = {p.binding_columns[0]: p for p in channel_names.platforms()}
    bindings = [  # in the file's column order: the first is tried first when no channel is preferred
        {"channel": p.name, "external_user_id": value, "chat_id": row.get(p.binding_columns[1]) or None}
        for column, value in row.items()
        if value and (p := platforms.get(column))
    ]
    if bindings:
        person["channel_bindings"] = bindings
    policy: dict[str, Any] = {}
    if row.get("preferred_channel"):
        policy["preferred_channel"] = row["preferred_channel"]
    if row.get("max_proactive_contacts_per_day"):
        cap = row["max_proactive_contacts_per_day"]
        policy["max_proactive_contacts_per_day"] = int(cap) if cap.isdigit() else cap
    if row.get("follow_up_stretch"):  # a number as written; anything else is handed on for the model to name
        stretch = row["follow_up_stretch"]
        policy["follow_up_stretch"] = float(stretch) if _NUMBER.fullmatch(stretch) else stretch
    if policy:
        person["interaction_policy"] = policy
    return person


class ImportFileError(ValueError):
    """The file as a whole cannot be read as persons (nothing is imported); the message is one line."""


def _text(path: Path) -> str:
    """The file's text; a spreadsheet saved in a legacy encoding (GBK, Windows-1252) gets told how to fix it."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFileError(
            f"{path.name} is not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}): save as UTF-8 "
            "(Excel: Save As → CSV UTF-8) and import again"
        ) from exc


def _yaml_rows(path: Path, text: str) -> list[Any]:
    try:
        data = yaml.load(text, Loader=_YamlLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ImportFileError(f"{path.name} is not valid YAML{where}: {problem}") from exc
    if isinstance(data, dict):
        if "persons" not in data:
            keys = ", ".join(map(str, list(data)[:5]))
            raise ImportFileError(f"{path.name} is a YAML mapping without `persons:` (it has {keys}); expected a "
                                  "list of persons or {persons: [...]}")  # fmt: skip
        data = data["persons"]
    if data is None:
        data = []
    if not isinstance(data, list):
        raise ImportFileError(f"{path.name}: persons must be a YAML list of persons or {{persons: [...]}}")
    return [r if isinstance(r, dict) else {"_invalid": r} for r in data]


def _csv_rows(path: Path, text: str) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text))
    columns = csv_columns()
    if not reader.fieldnames:
        raise ImportFileError(f"{path.name} is empty: expected a header row with {', '.join(columns)}")
    unknown = [c for c in reader.fieldnames if c and c.strip() not in columns]
    if unknown:  # a misspelt column would otherwise be dropped silently
        raise ImportFileError(f"unknown CSV column(s) {', '.join(unknown)}; expected {', '.join(columns)}")
    return [_csv_row(r) for r in reader]


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Raw person dicts from a `.yaml`/`.yml` (a list, or {persons: [...]}) or `.csv` file; ImportFileError when
    the file as a whole is unreadable, malformed, of the wrong shape or holds no person."""
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".csv"):
        raise ValueError(f"unsupported file type {path.suffix!r}: use .yaml, .yml or .csv")
    text = _text(path)
    rows = _csv_rows(path, text) if suffix == ".csv" else _yaml_rows(path, text)
    if not rows:
        raise ImportFileError(f"{path.name} holds no person")
    return rows


def _problems(exc: ValidationError) -> str:
    """Every problem of a row, not just the first: `timezone: …; interaction_policy.quiet_hours.0.start: …`."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'row'}: {e['msg']}" for e in exc.errors())


def _managers_first(rows: list[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows ordered so a manager or stand-in defined in the same file is written before the people naming them."""
    ids = {r.get("person_id"): i for i, r in enumerate(rows)}
    done: set[int] = set()

    def needed(row: dict[str, Any]) -> list[Any]:
        state = row.get("work_state")
        return [row.get("manager_id"), state.get("stand_in_id") if isinstance(state, dict) else None]

    def visit(i: int, path: set[int]) -> Iterator[tuple[int, dict[str, Any]]]:
        if i in done or i in path:
            return
        for other in needed(rows[i]):
            if isinstance(other, str) and other in ids and ids[other] != i:
                yield from visit(ids[other], path | {i})
        done.add(i)
        yield i, rows[i]

    for i in range(len(rows)):
        yield from visit(i, set())


def upsert_one(ctx: AppContext, raw: dict[str, Any], *, actor: str) -> tuple[str, str]:
    """Create or update one person in its own transaction; returns (person_id, outcome)."""
    data = PersonCreate.model_validate(raw)
    with ctx.uow(actor=actor) as uow:
        _, outcome = service.upsert(uow, data=data)
        return data.person_id, outcome


def import_file(
    ctx: AppContext, path: Path, *, actor: str = "cli", on_row: Callable[[RowResult], None] | None = None
) -> list[RowResult]:
    """Import every row of `path`; a bad row is reported and skipped, never half-written."""
    rows = read_rows(path)
    results: list[RowResult] = []
    for index, raw in _managers_first(rows):
        person_id = raw.get("person_id") if isinstance(raw.get("person_id"), str) else None
        try:
            if "_invalid" in raw:
                raise ValueError("row is not a mapping")
            pid, outcome = upsert_one(ctx, raw, actor=actor)
            result = RowResult(row=index + 1, person_id=pid, outcome=outcome)
        except ValidationError as exc:
            result = RowResult(row=index + 1, person_id=person_id, outcome="error", message=_problems(exc))
        except (DeputyError, ValueError) as exc:
            result = RowResult(row=index + 1, person_id=person_id, outcome="error", message=str(exc))
        results.append(result)
        if on_row:
            on_row(result)
    return sorted(results, key=lambda r: r.row)
