"""Server-side SVG charts (no JavaScript library, no external assets).

``history_svg`` draws one offer's price history as a step line: each change interval of
``offer_history`` is a horizontal segment at its USD-per-hour price, from ``valid_from`` to
``valid_to`` (or to the snapshot time while it is current). A gap between intervals (the offer
was not seen) is left as a gap rather than bridged.

Both charts take a ``width`` in CSS pixels: it is the SVG's viewBox width, so a page that asks
for the width it will show the chart at renders the 12-unit text at 12 px (a 1000-wide chart
squeezed onto a 390 px phone drew 4 px text). Below the width where the title and the
legend fit on one line, the legend moves to a second line and long captions shorten.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from html import escape
from itertools import pairwise
from typing import Any

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 40
MIN_WIDTH, MAX_WIDTH = 280, 2000  # px: the bounds of a chart's `width`
LINE_HEIGHT = 16  # px: a second header line (legend or caption) when the width is narrow
CHAR_WIDTH = 7.0  # px: a generous average glyph width of 12 px system-ui text
LINE = "#2563eb"
GRID = "#d4d4d8"
TEXT = "#27272a"


def _x(when: datetime, start: datetime, end: datetime, width: int = WIDTH) -> float:
    span = (end - start).total_seconds() or 1.0
    return LEFT + (width - LEFT - RIGHT) * (when - start).total_seconds() / span


def _y(price: float, low: float, high: float, top: int = TOP) -> float:
    span = (high - low) or 1.0
    return HEIGHT - BOTTOM - (HEIGHT - top - BOTTOM) * (price - low) / span


def text_width(text: str) -> float:
    """Estimated width in px of ``text`` at the charts' 12 px (no font metrics server-side)."""
    return CHAR_WIDTH * len(text)


def _checked_width(width: int) -> int:
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"chart width {width} px is outside {MIN_WIDTH}..{MAX_WIDTH}")
    return width


def _fitted(text: str, room: float) -> str:
    """``text`` cut with an ellipsis to about ``room`` px (the full text stays in <title>)."""
    keep = int(room // CHAR_WIDTH)
    return text if len(text) <= keep else text[: max(keep - 1, 1)].rstrip() + "\u2026"


def _header(title: str, right: list[str], right_width: float, width: int) -> tuple[str, int]:
    """The bold title at the top left and ``right`` (SVG fragments ``right_width`` px wide,
    drawn from x=0 at the top line's baseline 20) beside it, or on a second line under it
    when both do not fit in ``width``. Returns the markup and the plot's top in px."""
    room = width - LEFT - RIGHT
    one_line = text_width(title) + 24 + right_width <= room
    top, dy, title_x = (TOP, 0, LEFT) if one_line else (TOP + LINE_HEIGHT, LINE_HEIGHT, 8)
    shown = _fitted(title, width - title_x - RIGHT)
    parts = [f'<text x="{title_x}" y="20" fill="{TEXT}" font-weight="600">{escape(shown)}</text>']
    shift = max(width - RIGHT - right_width, title_x)
    parts.append(f'<g transform="translate({shift:.0f},{dy})">{"".join(right)}</g>')
    return "".join(parts), top


def _usd(value: float) -> str:
    return f"${value:,.2f}" if value >= 1 else f"${value:,.4f}".rstrip("0").rstrip(".")


def history_svg(
    title: str, intervals: Sequence[dict[str, Any]], as_of: datetime, width: int = WIDTH
) -> str:
    """SVG text for ``intervals`` (dicts with valid_from, valid_to, price_per_hour_usd; ordered
    by valid_from), ``width`` px wide. Prices in USD per instance-hour. Raises ValueError for
    no intervals or a width outside MIN_WIDTH..MAX_WIDTH."""
    if not intervals:
        raise ValueError("no price history to draw")
    width = _checked_width(width)
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

    unit = f"USD per hour, {len(segments)} price interval{'s' if len(segments) != 1 else ''}"
    header, top = _header(
        title, [f'<text x="0" y="20" fill="{TEXT}">{unit}</text>'], text_width(unit), width
    )

    def x(when: datetime) -> float:
        return _x(when, start, end, width)

    def y(price: float) -> float:
        return _y(price, low, high, top)

    parts: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {HEIGHT}" '
        f'width="{width}" height="{HEIGHT}" role="img" font-family="system-ui, sans-serif" '
        f'font-size="12">',
        f"<title>{escape(title)}: USD per hour</title>",
        header,
    ]
    for price in (low, (low + high) / 2, high):
        parts.append(
            f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y(price):.1f}" y2="{y(price):.1f}" '
            f'stroke="{GRID}"/><text x="{LEFT - 6}" y="{y(price) + 4:.1f}" text-anchor="end" '
            f'fill="{TEXT}">{_usd(price)}</text>'
        )
    for when, anchor in ((start, "start"), (end, "end")):
        parts.append(
            f'<text x="{x(when):.1f}" y="{HEIGHT - BOTTOM + 18}" '
            f'text-anchor="{anchor}" fill="{TEXT}">{when:%Y-%m-%d}</text>'
        )
    path: list[str] = []
    previous_end: datetime | None = None
    previous_y: float | None = None
    for seg_start, seg_end, price in segments:
        x0, x1, at = x(seg_start), x(seg_end), y(price)
        if previous_end is not None and previous_y is not None and seg_start <= previous_end:
            path.append(f"V{at:.1f}")  # price change: vertical step at the change time
        else:
            path.append(f"M{x0:.1f},{at:.1f}")  # first interval, or after a gap
        path.append(f"H{x1:.1f}")
        previous_end, previous_y = seg_end, at
    parts.append(f'<path d="{" ".join(path)}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    for seg_start, _, price in segments:
        parts.append(
            f'<circle cx="{x(seg_start):.1f}" cy="{y(price):.1f}" r="3" fill="{LINE}">'
            f"<title>{seg_start:%Y-%m-%d}: {_usd(price)}/h</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


MARKET_WIDTH, MARKET_HEIGHT = 1000, 300
MEDIAN = "#2563eb"
CHEAPEST = "#15803d"
BAND = "#bfdbfe"
COUNT_MIN_PX = 12  # narrowest bucket that is labelled with its provider count


def _providers(row: dict[str, Any]) -> frozenset[str]:
    """The providers of a ``GET /history`` row (``providers``; none known: empty)."""
    return frozenset(row.get("providers") or ())


def _named(row: dict[str, Any]) -> str:
    names = sorted(_providers(row))
    return f" ({escape(', '.join(names))})" if names else ""


def bucket_end(start: date, bucket: str) -> date:
    """The first day after the ``bucket`` ("day", "week", "month") that starts on ``start``."""
    if bucket == "day":
        return start + timedelta(days=1)
    if bucket == "week":
        return start + timedelta(days=7)
    if bucket == "month":
        return date(start.year + start.month // 12, start.month % 12 + 1, 1)
    raise ValueError(f"unknown bucket {bucket!r}")


def market_history_svg(
    title: str,
    buckets: Sequence[dict[str, Any]],
    bucket: str,
    until: date | None = None,
    width: int = MARKET_WIDTH,
) -> str:
    """SVG text of a GPU model's market price history: per bucket (``GET /history`` rows:
    start, min/median/max_usd_per_gpu_hour, provider_count, offer_count; ordered by start),
    the cheapest and the median provider price as step lines over the min-max band, in USD
    per GPU-hour. A bucket with no offers is left as a gap; the last one is cut at ``until``
    (exclusive; e.g. the day after the snapshot) when given; ``width`` px wide. Raises
    ValueError for no buckets or a width outside MIN_WIDTH..MAX_WIDTH."""
    if not buckets:
        raise ValueError("no price history to draw")
    width, height = _checked_width(width), MARKET_HEIGHT
    legend = (("cheapest provider", CHEAPEST), ("median provider", MEDIAN), ("min-max", BAND))
    keys: list[str] = []
    lx = 0.0
    for label, colour in legend:
        keys.append(
            f'<rect x="{lx:.0f}" y="10" width="14" height="10" fill="{colour}"/>'
            f'<text x="{lx + 18:.0f}" y="19" fill="{TEXT}">{label}</text>'
        )
        lx += 30 + text_width(label)
    header, top = _header(title, keys, lx - 12, width)
    rows = [
        (
            row["start"],
            min(bucket_end(row["start"], bucket), until or date.max),
            float(Decimal(row["min_usd_per_gpu_hour"])),
            float(Decimal(row["median_usd_per_gpu_hour"])),
            float(Decimal(row["max_usd_per_gpu_hour"])),
            row,
        )
        for row in buckets
    ]
    first, last = rows[0][0], rows[-1][1]
    span = (last - first).days or 1
    low = min(r[2] for r in rows)
    high = max(r[4] for r in rows)
    pad = (high - low) * 0.08 or high * 0.1 or 1.0
    low, high = max(0.0, low - pad), high + pad

    def x(day: date) -> float:
        return LEFT + (width - LEFT - RIGHT) * (day - first).days / span

    def y(price: float) -> float:
        return height - BOTTOM - (height - top - BOTTOM) * (price - low) / ((high - low) or 1.0)

    # runs of buckets drawn as one line: a bucket that starts where the previous one ended,
    # over the same providers; where the set changes (a provider's price passes its shelf life,
    # a provider appears) a new line starts, so a change of composition is not drawn as a move
    runs: list[list[tuple]] = []
    for row in rows:
        previous = runs[-1][-1] if runs else None
        if previous and previous[1] == row[0] and _providers(previous[5]) == _providers(row[5]):
            runs[-1].append(row)
        else:
            runs.append([row])
    # the count is marked on every bucket where there is room, else where each line starts
    roomy = (width - LEFT - RIGHT) / max(len(rows), 1) >= COUNT_MIN_PX

    def steps(run: list[tuple], index: int) -> str:
        path = [f"M{x(run[0][0]):.1f},{y(run[0][index]):.1f}"]
        for row in run:
            path.append(f"V{y(row[index]):.1f}H{x(row[1]):.1f}")
        return "".join(path)

    parts: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" font-family="system-ui, sans-serif" '
        f'font-size="12">',
        f"<title>{escape(title)}: USD per GPU-hour</title>",
        header,
    ]
    for price in (low, (low + high) / 2, high):
        parts.append(
            f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y(price):.1f}" y2="{y(price):.1f}" '
            f'stroke="{GRID}"/><text x="{LEFT - 6}" y="{y(price) + 4:.1f}" text-anchor="end" '
            f'fill="{TEXT}">${price:,.2f}</text>'
        )
    # the first and the last day covered, under the ends of the axis
    for at, day, anchor in ((first, first, "start"), (last, last - timedelta(days=1), "end")):
        parts.append(
            f'<text x="{x(at):.1f}" y="{height - BOTTOM + 18}" text-anchor="{anchor}" '
            f'fill="{TEXT}">{day:%Y-%m-%d}</text>'
        )
    for run in runs:
        upper = [f"{x(s):.1f},{y(p[2]):.1f} {x(e):.1f},{y(p[2]):.1f}" for s, e, *p in run]
        lower = [f"{x(e):.1f},{y(p[0]):.1f} {x(s):.1f},{y(p[0]):.1f}" for s, e, *p in run]
        parts.append(
            f'<polygon class="range" points="{" ".join(upper + lower[::-1])}" fill="{BAND}" '
            f'fill-opacity="0.7"/>'
        )
    for run in runs:
        parts.append(
            f'<path class="median" d="{steps(run, 3)}" fill="none" stroke="{MEDIAN}" '
            f'stroke-width="2"/><path class="cheapest" d="{steps(run, 2)}" fill="none" '
            f'stroke="{CHEAPEST}" stroke-width="2"/>'
        )
    # providers per bucket, and a dashed rule where the set changes between adjacent buckets
    labelled = -float("inf")  # where the last count was drawn: narrow lines keep theirs apart
    for run in runs:
        for start, end, *_, row in run if roomy else run[:1]:
            at = (x(start) + x(end)) / 2 if roomy else x(start) + 2
            if not roomy and at - labelled < COUNT_MIN_PX:
                continue  # the tooltip and the dashed rule's title still say it
            labelled = at
            parts.append(
                f'<text class="provider-count" x="{at:.1f}" y="{height - BOTTOM - 4}" '
                f'text-anchor="{"middle" if roomy else "start"}" '
                f'font-size="10" fill="{TEXT}">{int(row["provider_count"])}</text>'
            )
    for before, after in pairwise(runs):
        previous, first_row = before[-1], after[0]
        if previous[1] != first_row[0]:
            continue  # a gap: the lines are apart already
        old, new = _providers(previous[5]), _providers(first_row[5])
        change = f"{first_row[0]:%Y-%m-%d}: {len(old)} -> {len(new)} providers"
        if old - new:
            change += f"; left: {', '.join(sorted(old - new))}"
        if new - old:
            change += f"; joined: {', '.join(sorted(new - old))}"
        parts.append(
            f'<line class="provider-change" x1="{x(first_row[0]):.1f}" '
            f'x2="{x(first_row[0]):.1f}" y1="{TOP}" y2="{height - BOTTOM}" stroke="{TEXT}" '
            f'stroke-dasharray="3 3" stroke-opacity="0.5"><title>{escape(change)}</title></line>'
        )
    # one transparent column per bucket carries its numbers as a tooltip
    for start, end, cheapest, median, highest, row in rows:
        parts.append(
            f'<rect x="{x(start):.1f}" y="{top}" width="{max(x(end) - x(start), 1):.1f}" '
            f'height="{height - top - BOTTOM}" fill="transparent"><title>{start:%Y-%m-%d}: '
            f"cheapest {_usd(cheapest)}, median {_usd(median)}, highest {_usd(highest)} per "
            f"GPU-hour; {int(row['provider_count'])} providers, {int(row['offer_count'])} offers"
            f"{_named(row)}</title></rect>"
        )
    # the longest caption that fits: numbers are provider counts, a line breaks where they change
    captions = (
        f"USD per GPU-hour, each provider's cheapest offer, by {bucket}; numbers: providers;"
        " a new line where the set of providers changes",
        f"USD per GPU-hour, by {bucket}; numbers: providers",
        f"USD per GPU-hour, by {bucket}",
    )
    caption = next((c for c in captions if text_width(c) <= width - 16), captions[-1])
    parts.append(
        f'<text x="{width - RIGHT}" y="{height - 6}" text-anchor="end" fill="{TEXT}">'
        f"{escape(caption)}</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
