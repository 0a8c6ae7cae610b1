"""GET /instances answers byte for byte as it did before the read side was optimised (issue 13):
status, the headers a client or cache acts on, and a digest of the body, for a fixed set of
queries over the full replay, rebuilt and published at a fixed instant (ages and the ETag depend
on it). The pins were recorded from the code before the raw-ASGI route and the single cache.

An intended change of the answers (a renamed field) re-records them:
``GPUPRICES_REPIN=1 uv run pytest tests/api/test_instances_pinned.py``; the diff of
``pins/instances.json`` then shows which answers changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.app import create_app
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.publish import publish

PINS = Path(__file__).parent / "pins" / "instances.json"
AT = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)  # after every capture date
# the headers that carry meaning (Date and Server do not)
HEADERS = (
    "content-type",
    "content-length",
    "content-encoding",
    "content-disposition",
    "cache-control",
    "vary",
    "etag",
    "last-modified",
    "x-total-count",
    "x-csv-list",
    "link",
)
# (query string, extra request headers)
QUERIES: list[tuple[str, dict[str, str]]] = [
    ("", {}),
    ("min_vram=80&fp8=true", {}),
    ("fp8=true&min_vram=80", {}),
    ("min_vram=80&fp8=true&limit=1000", {}),
    ("limit=1000", {}),
    ("limit=1000&include_suspect=true", {}),
    ("sort=-price&limit=7", {}),
    ("sort=price_per_gpu&offset=20&limit=30", {}),
    ("sort=-price_per_gpu&offset=700&limit=50", {}),
    ("sort=price_per_vram_gb", {}),
    ("sort=-price_per_vram_gb&serverless=false", {}),
    ("sort=vram&limit=40", {}),
    ("sort=-vram&min_gpus=8", {}),
    ("gpu=h100", {}),
    ("gpu=H100-SXM,a100-80gb&sort=-price", {}),
    ("gpu=RTX4090&gpu=l40s", {}),
    ("gpu=nonexistent-gpu", {}),
    ("provider=Lambda,runpod&pricing=on_demand", {}),
    ("provider=vast&cheapest_per_gpu=true&sort=-price", {}),
    ("cheapest_per_gpu=true&limit=1000", {}),
    ("cheapest_per_gpu=true&min_vram=40&sort=vram&offset=5&limit=10", {}),
    ("pricing=spot&pricing=reserved", {}),
    ("serverless=true", {}),
    ("bf16=false", {}),
    ("max_price=2.5&max_price_per_gpu=1.2", {}),
    ("max_price_per_gpu=0", {}),
    ("min_total_vram=640&sort=-price_per_gpu", {}),
    ("region=US-EAST-1,eu-west-1", {}),
    ("max_age_days=30&sort=price_per_gpu", {}),
    ("max_age_days=0", {}),
    ("offset=1000000", {}),
    ("min_vram=80&fp8=true&format=csv", {}),
    ("cheapest_per_gpu=true&format=csv", {}),
    ("min_vram=80", {"accept": "text/csv"}),
    ("min_vram=80&fp8=true", {"accept-encoding": "gzip"}),
    ("limit=1000", {"accept-encoding": "gzip"}),
    # errors: the same 400s, word for word
    ("min_vram=-1", {}),
    ("min_vram=abc", {}),
    ("sort=cheap", {}),
    ("pricing=hourly", {}),
    ("limit=0", {}),
    ("limit=1001", {}),
    ("offset=-1", {}),
    ("fp8=maybe", {}),
    ("min_vrm=80", {}),
    ("format=xml", {}),
    ("gpu=" + ",".join(f"g{i}" for i in range(51)), {}),
    ("provider=" + "x" * 5000, {}),
    ("min_vram=80&min_vram=90", {}),
    # issue 25: pricing spellings, vCPU/RAM minimums, unknown values
    ("pricing=ON_DEMAND,spot&limit=20", {}),
    ("min_vcpus=64&min_ram_gb=512&sort=price_per_gpu", {}),
    ("provider=lamda", {}),
    ("gpu=h100-sxn&region=us-east-l", {}),
]


@pytest.fixture(scope="module")
def client(replayed_home, tmp_path_factory):  # replayed_home: tests/conftest.py
    paths, _ = replayed_home
    root = tmp_path_factory.mktemp("pinned")
    copy = root / "warehouse.duckdb"
    shutil.copyfile(paths.warehouse, copy)
    with Warehouse(copy).connect() as con:
        rebuild(con, now=AT)
        publish(con, root / "published", now=AT)
    with TestClient(create_app(root / "published", reload_interval_s=3600)) as test_client:
        yield test_client


def _answer(client, query: str, headers: dict[str, str]) -> dict:
    response = client.get("/instances" + ("?" + query if query else ""), headers=headers)
    body = response.content
    return {
        "status": response.status_code,
        "headers": {k: response.headers[k] for k in HEADERS if k in response.headers},
        "body_bytes": len(body),
        "body_sha256": hashlib.sha256(body).hexdigest(),
        **(
            {"total": response.json()["total"]}
            if response.status_code == 200 and query.find("csv") < 0 and "accept" not in headers
            else {}
        ),
    }


def _key(query: str, headers: dict[str, str]) -> str:
    return query + "".join(f" [{k}: {v}]" for k, v in sorted(headers.items()))


def test_instances_answers_are_unchanged_byte_for_byte(client) -> None:
    # each query as the test client sends it (Accept-Encoding: gzip, deflate) and as a client
    # that takes no compression (wrk, curl): the fast route answers the latter
    variants = [*QUERIES, *((q, {"accept-encoding": "identity", **h}) for q, h in QUERIES)]
    answers = {_key(q, h): _answer(client, q, h) for q, h in variants}
    if os.environ.get("GPUPRICES_REPIN") == "1":
        PINS.parent.mkdir(exist_ok=True)
        PINS.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    pinned = json.loads(PINS.read_text(encoding="utf-8"))
    assert sorted(pinned) == sorted(answers)
    changed = [k for k in answers if answers[k] != pinned[k]]
    assert not changed, {k: (pinned[k], answers[k]) for k in changed[:3]}


@pytest.mark.parametrize("encoding", ["gzip, deflate", "identity"])
def test_a_repeat_and_head_answer_the_same(client, encoding: str) -> None:
    plain = {"accept-encoding": encoding}
    first = client.get("/instances?min_vram=80&fp8=true", headers=plain)
    again = client.get("/instances?min_vram=80&fp8=true", headers=plain)
    head = client.head("/instances?min_vram=80&fp8=true", headers=plain)
    assert again.content == first.content and head.content == b""
    assert {k: again.headers.get(k) for k in HEADERS} == {k: first.headers.get(k) for k in HEADERS}
    assert head.headers["content-length"] == first.headers["content-length"]
    tag = first.headers["etag"]
    conditional = {"if-none-match": tag, **plain}
    assert client.get("/instances?min_vram=80&fp8=true", headers=conditional).status_code == 304
