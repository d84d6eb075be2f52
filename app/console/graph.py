"""The causal trace as a server-rendered SVG graph (pure): facts in columns by kind, an arrow from cause to effect."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

COLUMN_W, BOX_W, BOX_H, ROW_H, HEAD = 240, 212, 40, 50, 30


@dataclass(frozen=True)
class Node:
    """One fact in the graph: its column, two lines of text, where it links, and its CSS key (`node-<key>`)."""

    id: str
    column: int
    title: str
    detail: str
    href: str
    key: str


def clip(text: str, units: int) -> str:
    """`text` cut to `units` columns (CJK counts two), with an ellipsis when cut."""
    used, out = 0, []
    for char in " ".join(text.split()):
        width = 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
        if used + width > units - 1:
            return "".join(out) + "…"
        used += width
        out.append(char)
    return "".join(out)


def _edge(a: tuple[float, float], b: tuple[float, float]) -> str:
    (x1, y1), (x2, y2) = a, b
    if x2 > x1:  # to a later column: leave from the right edge, enter at the left
        sx, sy, ex, ey = x1 + BOX_W, y1 + BOX_H / 2, x2, y2 + BOX_H / 2
        mid = (sx + ex) / 2
        return f"M{sx:.0f},{sy:.0f} C{mid:.0f},{sy:.0f} {mid:.0f},{ey:.0f} {ex - 2:.0f},{ey:.0f}"
    if x2 < x1:  # back to an earlier column (a result that changed the loop)
        sx, sy, ex, ey = x1, y1 + BOX_H / 2, x2 + BOX_W, y2 + BOX_H / 2
        mid = (sx + ex) / 2
        return f"M{sx:.0f},{sy:.0f} C{mid:.0f},{sy:.0f} {mid:.0f},{ey:.0f} {ex + 2:.0f},{ey:.0f}"
    sx, sy, ey = x1 + 14, y1 + BOX_H, y2  # same column: down the left side
    return f"M{sx:.0f},{sy:.0f} C{sx - 24:.0f},{sy + 10:.0f} {sx - 24:.0f},{ey - 10:.0f} {sx:.0f},{ey - 2:.0f}"


def trace_graph(
    nodes: Sequence[Node], edges: Sequence[tuple[str, str]], *, columns: Sequence[str], label: str
) -> Markup:
    """One row per node in the given (time) order, columns by kind; `edges` are (cause id, effect id)."""
    width = COLUMN_W * len(columns) + 8
    height = HEAD + ROW_H * max(len(nodes), 1)
    at = {n.id: (8 + n.column * COLUMN_W, HEAD + i * ROW_H) for i, n in enumerate(nodes)}
    parts = [
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>'
    ]
    parts += [
        f'<text class="colhead" x="{8 + i * COLUMN_W + BOX_W / 2}" y="18" text-anchor="middle">{escape(c)}</text>'
        for i, c in enumerate(columns)
    ]
    for cause, effect in edges:
        if cause in at and effect in at and cause != effect:
            parts.append(f'<path class="edge" d="{_edge(at[cause], at[effect])}" marker-end="url(#arrow)"/>')
    for node in nodes:
        x, y = at[node.id]
        parts.append(
            f'<a href="{escape(node.href)}"><g class="node node-{escape(node.key)}">'
            f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"/>'
            f'<text class="t1" x="{x + 10}" y="{y + 16}">{escape(clip(node.title, 32))}</text>'
            f'<text class="t2" x="{x + 10}" y="{y + 32}">{escape(clip(node.detail, 34))}</text>'
            f"<title>{escape(node.id)}: {escape(node.detail)}</title></g></a>"
        )
    return Markup(
        f'<svg class="trace" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )
