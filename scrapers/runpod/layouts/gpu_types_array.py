"""``gpuTypes array`` (the 2025-06 captures): the live query's ``data.gpuTypes`` items without
the envelope, with the per-cloud prices, flags, spot and savings plans (and ``oneWeekPrice``,
``clusterPrice``, which are no offers). Read as the live items are (``layouts.graphql``)."""

from __future__ import annotations

from scrapers.base import RawResponse
from scrapers.parsing import json_body
from scrapers.runpod.fetch import GRAPHQL_URL
from scrapers.runpod.gpu_types import Item, check_price_fields, checked_items, is_json
from scrapers.runpod.layouts.graphql import read_row

__all__ = ["detect", "read_row", "rows"]

LAYOUT = "gpuTypes array"


def detect(response: RawResponse) -> bool:
    return is_json(response, b"[")


def rows(response: RawResponse) -> list[Item]:
    items = checked_items(json_body(response), LAYOUT)
    check_price_fields(items, LAYOUT)
    return [Item(item, LAYOUT, GRAPHQL_URL, response.fetched_at) for item in items]
