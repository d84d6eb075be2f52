"""Server-rendered SVG charts (pure: data in, markup out), coloured by CSS classes so the CSP needs no inline style."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

LEFT, RIGHT, TOP, BOTTOM = 40, 8, 10, 24


@dataclass(frozen=True)
class Series:
    """One stacked series: a CSS key (`fill-<key>`), its label, one value per category."""

    key: str
    label: str
    values: Sequence[int]


def nice_max(value: float) -> int:
    """The smallest 1, 2 or 5 × 10ⁿ at or above `value` (at least 1): the top of the axis."""
    if value <= 1:
        return 1
    exponent = 10 ** math.floor(math.log10(value))
    return int(next(step * exponent for step in (1, 2, 5, 10) if step * exponent >= value))


def _grid(top_value: int, *, width: int, plot_h: int) -> list[str]:
    parts = []
    for i in range(5):
        value = top_value * i / 4
        y = TOP + plot_h - plot_h * i / 4
        label = f"{value:g}" if value == int(value) else ""
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{width - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    return parts


def stacked_bars(
    categories: Sequence[str], series: Sequence[Series], *, label: str, width: int = 640, height: int = 200
) -> Markup:
    """Vertical bars, one per category, its series stacked; every segment carries a tooltip."""
    totals = [sum(s.values[i] for s in series) for i in range(len(categories))]
    top_value = nice_max(max(totals, default=0))
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM
    band = plot_w / max(len(categories), 1)
    bar = max(band * 0.7, 1)
    parts = _grid(top_value, width=width, plot_h=plot_h)
    every = max(1, math.ceil(len(categories) / 8))  # at most ~8 labels under the axis
    for i, category in enumerate(categories):
        x = LEFT + i * band + (band - bar) / 2
        base = TOP + plot_h
        for s in series:
            value = s.values[i]
            if value <= 0:
                continue
            h = plot_h * value / top_value
            base -= h
            tip = escape(f"{category} · {s.label}: {value}")
            parts.append(
                f'<rect class="fill-{escape(s.key)}" x="{x:.1f}" y="{base:.1f}" width="{bar:.1f}" height="{h:.1f}">'
                f"<title>{tip}</title></rect>"
            )
        if i % every == 0 or i == len(categories) - 1:
            parts.append(
                f'<text class="axis" x="{x + bar / 2:.1f}" y="{height - 6}" text-anchor="middle">'
                f"{escape(category)}</text>"
            )
    return _svg(parts, width=width, height=height, label=label)


def hbars(items: Sequence[tuple[str, int, str]], *, label: str, width: int = 640) -> Markup:
    """Horizontal bars `(label, value, css key)`, largest first as given, the value written at the bar's end."""
    row, label_w = 26, 190
    height = TOP + row * max(len(items), 1) + 4
    top_value = max((v for _, v, _ in items), default=0) or 1
    plot_w = width - label_w - 48
    parts = []
    for i, (name, value, key) in enumerate(items):
        y = TOP + i * row
        w = max(plot_w * value / top_value, 2)
        parts.append(f'<text class="label" x="{label_w - 8}" y="{y + 15}" text-anchor="end">{escape(name)}</text>')
        parts.append(
            f'<rect class="fill-{escape(key)}" x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row - 8}">'
            f"<title>{escape(name)}: {value}</title></rect>"
        )
        parts.append(f'<text class="value" x="{label_w + w + 6:.1f}" y="{y + 15}">{value}</text>')
    return _svg(parts, width=width, height=height, label=label)


def _svg(parts: list[str], *, width: int, height: int, label: str) -> Markup:
    body = "".join(parts)
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" aria-label="{escape(label)}" '
        f'preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">{body}</svg>'
    )
