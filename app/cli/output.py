"""How the `deputy` commands print: tables that fit the terminal, plain lines when piped, JSON lines for scripts.

User text (questions, answers, names) is printed as text, never read as Rich markup: `[urgent]` stays `[urgent]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

_SPACES = re.compile(r"[\t\r\n]+")


def out() -> Console:
    """A console on stdout that prints strings as they are (no markup, no highlighting, no emoji codes)."""
    return Console(markup=False, highlight=False, emoji=False)


def err() -> Console:
    """The same on stderr (progress, summaries in plain mode)."""
    return Console(stderr=True, markup=False, highlight=False, emoji=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one `error:` line on stderr; raise the returned Exit with `code`."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=code)


def json_lines(objects: Iterable[dict[str, Any]]) -> None:
    """One JSON object per line on stdout (UTF-8, not escaped): `jq -c`, `grep`, `wc -l` work on it."""
    for obj in objects:
        typer.echo(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


@dataclass(frozen=True)
class Column:
    """A table column: `keep` ranks it (the lowest is dropped first when the terminal is narrow); `whole` cells
    never wrap (ids, times); `clip` cells keep to one line in a terminal, cut with … (JSON content)."""

    name: str
    keep: int = 0
    whole: bool = False
    min_width: int = 6
    clip: bool = False


def one_line(value: Any) -> str:
    """A cell as one line: tabs and line breaks become spaces, so a piped row stays one row."""
    return _SPACES.sub(" ", "" if value is None else str(value))


_FRAME = 3  # a column's border and padding in a boxed table


def _narrowest(column: Column, cells: Sequence[str]) -> int:
    """How narrow a column may get, its frame included: whole cells in full, the others at their minimum width
    (folded text can break anywhere, so a long word does not hold it wider)."""
    header = max(map(cell_len, column.name.split()))
    if column.whole:
        return max([cell_len(c) for c in cells] + [cell_len(column.name)]) + _FRAME
    return max(column.min_width, header) + _FRAME


def _build(
    title: str, columns: Sequence[Column], cells: Sequence[Sequence[str]], chosen: list[int], clip: int
) -> Table:
    shown = Table(title=Text(title), box=box.SQUARE, expand=False)
    for i in chosen:
        column = columns[i]
        shown.add_column(
            Text(column.name),
            no_wrap=column.whole or column.clip,
            overflow="ellipsis" if column.clip else "fold",
            max_width=clip if column.clip else None,
        )
    for row in cells:
        shown.add_row(*(Text(row[i]) for i in chosen))
    return shown


def fitted(
    title: str, columns: Sequence[Column], cells: Sequence[Sequence[str]], width: int
) -> tuple[Table, list[str]]:
    """The table at `width` and the names of the columns it leaves out: the least important (never the first)
    are dropped until the rest fit at their narrowest; what is left over goes to the clipped columns."""
    narrowest = [_narrowest(c, [row[i] for row in cells]) for i, c in enumerate(columns)]
    chosen = list(range(len(columns)))
    while len(chosen) > 1 and sum(narrowest[i] for i in chosen) + 1 > width:
        chosen.remove(min(chosen[1:], key=lambda i: columns[i].keep))
    clipped = [i for i in chosen if columns[i].clip]
    spare = width - 1 - sum(narrowest[i] for i in chosen)
    clip = min((narrowest[i] - _FRAME for i in clipped), default=0) + max(spare, 0) // max(len(clipped), 1)
    return _build(title, columns, cells, chosen, clip), [c.name for i, c in enumerate(columns) if i not in chosen]


def table(title: str, columns: Sequence[Column], rows: Sequence[Sequence[Any]], console: Console | None = None) -> None:
    """A table fitted to the terminal (wrapped, columns dropped when narrow); piped: a tab-separated header and
    one line per row, every column, nothing cut, and the title on stderr."""
    console = console or out()
    cells = [[one_line(v) for v in row] for row in rows]
    if not console.is_terminal:
        typer.echo("\t".join(c.name for c in columns))
        for row in cells:
            typer.echo("\t".join(row))
        typer.echo(title, err=True)
        return
    shown, dropped = fitted(title, columns, cells, console.width)
    console.print(shown)
    if dropped:
        console.print(Text(f"(not shown at this width: {', '.join(dropped)}; widen the terminal or use --json)"))
