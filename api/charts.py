"""Server-side SVG charts (no JavaScript library, no external assets).

``history_svg`` draws one offer's price history as a step line: each change interval of
``offer_history`` is a horizontal segment at its USD-per-hour price, from ``valid_from`` to
``valid_to`` (or to the snapshot time while it is current). A gap between intervals (the offer
was not seen) is left as a gap rather than bridged.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from html import escape
from typing import Any

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 40
LINE = "#2563eb"
GRID = "#d4d4d8"
TEXT = "#27272a"


def _x(when: datetime, start: datetime, end: datetime) -> float:
    span = (end - start).total_seconds() or 1.0
    return LEFT + (WIDTH - LEFT - RIGHT) * (when - start).total_seconds() / span


def _y(price: float, low: float, high: float) -> float:
    span = (high - low) or 1.0
    return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * (price - low) / span


def _usd(value: float) -> str:
    return f"${value:,.2f}" if value >= 1 else f"${value:,.4f}".rstrip("0").rstrip(".")


def history_svg(title: str, intervals: Sequence[dict[str, Any]], as_of: datetime) -> str:
    """SVG text for ``intervals`` (dicts with valid_from, valid_to, price_per_hour_usd; ordered
    by valid_from). Prices in USD per instance-hour. Raises ValueError for no intervals."""
    if not intervals:
        raise ValueError("no price history to draw")
    segments = [
        (row["valid_from"], row["valid_to"] or as_of, float(Decimal(row["price_per_hour_usd"])))
        for row in intervals
    ]
    start = min(s for s, _, _ in segments)
    end = max(max(e for _, e, _ in segments), as_of)
    prices = [p for _, _, p in segments]
    low, high = min(prices), max(prices)
    pad = (high - low) * 0.1 or high * 0.1 or 1.0
    low, high = max(0.0, low - pad), high + pad

    parts: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" font-family="system-ui, sans-serif" '
        f'font-size="12">',
        f"<title>{escape(title)}: USD per hour</title>",
        f'<text x="{LEFT}" y="20" fill="{TEXT}" font-weight="600">{escape(title)}</text>',
    ]
    for price in (low, (low + high) / 2, high):
        y = _y(price, low, high)
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>'
        )
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
            f'fill="{TEXT}">{_usd(price)}</text>'
        )
    for when, anchor in ((start, "start"), (end, "end")):
        parts.append(
            f'<text x="{_x(when, start, end):.1f}" y="{HEIGHT - BOTTOM + 18}" '
            f'text-anchor="{anchor}" fill="{TEXT}">{when:%Y-%m-%d}</text>'
        )
    path: list[str] = []
    previous_end: datetime | None = None
    previous_y: float | None = None
    for seg_start, seg_end, price in segments:
        x0, x1, y = _x(seg_start, start, end), _x(seg_end, start, end), _y(price, low, high)
        if previous_end is not None and previous_y is not None and seg_start <= previous_end:
            path.append(f"V{y:.1f}")  # price change: vertical step at the change time
        else:
            path.append(f"M{x0:.1f},{y:.1f}")  # first interval, or after a gap
        path.append(f"H{x1:.1f}")
        previous_end, previous_y = seg_end, y
    parts.append(f'<path d="{" ".join(path)}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    for seg_start, _, price in segments:
        parts.append(
            f'<circle cx="{_x(seg_start, start, end):.1f}" '
            f'cy="{_y(price, low, high):.1f}" r="3" fill="{LINE}">'
            f"<title>{seg_start:%Y-%m-%d}: {_usd(price)}/h</title></circle>"
        )
    parts.append(
        f'<text x="{WIDTH - RIGHT}" y="20" text-anchor="end" fill="{TEXT}">'
        f"USD per hour, {len(segments)} price interval"
        f"{'s' if len(segments) != 1 else ''}</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
