"""The gpu-hunt.com site's tables: ``*_servers.csv``, ``*_price_history.csv``, ``providers.csv``.

``servers`` has one row per server the site's hourly scrapers ever listed (id, provider_id,
name, GPU model/count/VRAM, currency, location, latest price); ``price_history`` has one row
per server per scrape (server_id, price_hourly, price_monthly, recorded_at). Together they are
real per-offer history, imported as change intervals into ``offer_history`` with
``source = 'import:gpu-hunt-site'`` by the same code that builds scraped history
(``warehouse.history.apply_batch``):

- A provider's rows whose ``recorded_at`` lie within ``SESSION_GAP`` of the previous row form
  one scrape session; a server missing from a later session of its provider closes its
  interval. Intervals still open after the provider's last session are closed there: the
  dataset says nothing about later times.
- Offer identity is the site's server id (namespaced with the dataset name); the interval's
  ``instance_type`` is the server's display name. Pricing is on-demand (the site lists hourly
  and monthly list prices). Price: ``price_hourly`` in the server's currency per
  instance-hour; where only ``price_monthly`` is given (OVH), it is converted with the one
  monthly rule in ``warehouse.units``.
- Servers without a GPU model or with ``gpu_count`` 0 (CPU-only dedicated servers) are left out
  and counted. Servers without any price_history row (providers the site did not record
  history for) contribute one observation at their ``scraped_at``.
- GPU names resolve through ``gpus.resolve`` with the server's VRAM as a hint: first the
  display name without its count prefix ("8x H100 SXM5" -> "H100 SXM5"), the provider's own
  label, then the site's GPU model column, which is a lossy normalisation of it ("RTX A4000"
  -> "NVIDIA A40", "RTX 4080S" -> "NVIDIA RTX 4080", "H100 SXM5" -> "NVIDIA H100"). A name
  that names only a family ("1× A100 80GB" / "NVIDIA A100": SXM or PCIe) keeps ``gpu_id`` null
  and gets ``gpu_family`` ('a100'; ``warehouse.importers.families``), tried in the same order
  after both model lookups failed. Names that resolve to neither keep both null and are counted
  per spelling.
- Each row read has one outcome, counted once: excluded (with its reason, including a repeat
  of a server within one session), or kept with its GPU resolved to a model, a family, or
  nothing.

Caveat from the dataset's provenance: for providers the site scrapes without raw data
(coreweave, tensordock, lambda, salad, paperspace) rows may be hard-coded fallback values. The
daily rollup therefore prefers scraped intervals over these for the same provider and day.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path

import duckdb

from warehouse.db import bulk_insert, transaction
from warehouse.gpus import resolve_from_facts, resolve_spelling
from warehouse.history import (
    BATCH_TABLE,
    IMPORT_PREFIX,
    OBSERVED_COLUMNS,
    OBSERVED_TABLE,
    apply_batch,
    mark_dirty,
)
from warehouse.importers.common import (
    DatasetError,
    ImportResult,
    fingerprint,
    previous,
    record,
    require_files,
)
from warehouse.importers.families import resolve_family
from warehouse.normalise import fx_rate
from warehouse.records import offer_id
from warehouse.units import price_per_hour, quantize_money, share_per_gpu_usd, to_usd

DATASET = "gpu-hunt-site"
SOURCE = IMPORT_PREFIX + DATASET
VERSION = 4  # 3: gpu_family; a repeated row is counted only as excluded; 4: last_seen_at, units
SESSION_GAP = timedelta(seconds=60)
_SERVER_FIELDS = (
    "id",
    "provider_id",
    "name",
    "gpu_model",
    "gpu_count",
    "gpu_vram_gb",
    "price_monthly",
    "price_hourly",
    "currency",
    "location",
    "scraped_at",
)
_HISTORY_FIELDS = ("server_id", "price_monthly", "price_hourly", "recorded_at")
_COUNT_PREFIX = re.compile(r"^\s*\d+\s*[x×]\s*", re.IGNORECASE)


@dataclass(frozen=True)
class _Observation:
    server_id: str
    recorded_at: datetime
    price_hourly: Decimal | None
    price_monthly: Decimal | None


def _csv(path: Path, fields: tuple[str, ...]) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [f for f in fields if f not in (reader.fieldnames or [])]
        if missing:
            raise DatasetError(f"{path.name}: missing columns {', '.join(missing)}")
        return list(reader)


def _decimal(text: str | None, where: str) -> Decimal | None:
    if text is None or text.strip() == "":
        return None
    try:
        return Decimal(text.strip())
    except InvalidOperation:
        raise DatasetError(f"{where}: {text!r} is not a number") from None


def _time(text: str, where: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise DatasetError(f"{where}: {text!r} is not an ISO timestamp") from None
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def _gpu(server: dict[str, str]) -> tuple[str, str | None, str | None]:
    """(GPU spelling, gpu_id, gpu_family): a model that the alias table spells, from the display
    name, else from the site's model column; then one the row's facts name (its VRAM,
    ``gpus.resolve_from_facts``), in the same order; only then a family. gpu_family is set
    only when gpu_id is None; both None for a name that resolves to neither (the model column
    is returned)."""
    vram = _decimal(server["gpu_vram_gb"], f"server {server['id']}")
    hint = float(vram) if vram else None
    display = _COUNT_PREFIX.sub("", server["name"]).strip()
    names = [n for n in (display, server["gpu_model"].strip()) if n]
    # a spelling of the alias table first, in either column; only then the row's facts
    for rule in (resolve_spelling, resolve_from_facts):
        for name in names:
            gpu_id = rule(name, hint)
            if gpu_id is not None:
                return name, gpu_id, None
    for name in names:
        family = resolve_family(name)
        if family is not None:
            return name, None, family
    return server["gpu_model"], None, None


def _one_file(folder: Path, pattern: str) -> Path:
    found = require_files(folder, pattern)
    if len(found) != 1:
        raise DatasetError(f"expected one {pattern} in {folder}, found {len(found)}")
    return found[0]


def import_dataset(con: duckdb.DuckDBPyConnection, folder: Path) -> ImportResult:
    """Replace this dataset's intervals in ``offer_history`` from ``folder``'s tables.

    Raises DatasetError when a table misses a column or holds an unreadable value; nothing is
    written then. Skips all writing when the files are unchanged since the last import.
    """
    servers_path = _one_file(folder, "*_servers.csv")
    history_path = _one_file(folder, "*_price_history.csv")
    paths = [servers_path, history_path]
    fp = fingerprint(paths, VERSION)
    done = previous(con, DATASET, fp)
    if done is not None:
        return done
    result = ImportResult(DATASET, files=len(paths))
    servers = {row["id"]: row for row in _csv(servers_path, _SERVER_FIELDS)}
    observations: list[_Observation] = []
    seen: set[str] = set()
    for i, row in enumerate(_csv(history_path, _HISTORY_FIELDS)):
        where = f"{history_path.name} row {i + 2}"
        result.rows_read += 1
        seen.add(row["server_id"])
        observations.append(
            _Observation(
                row["server_id"],
                _time(row["recorded_at"], where),
                _decimal(row["price_hourly"], where),
                _decimal(row["price_monthly"], where),
            )
        )
    for server_id, server in servers.items():
        if server_id not in seen:  # no history: the servers table's own latest price
            where = f"{servers_path.name} server {server_id}"
            result.rows_read += 1
            observations.append(
                _Observation(
                    server_id,
                    _time(server["scraped_at"], where),
                    _decimal(server["price_hourly"], where),
                    _decimal(server["price_monthly"], where),
                )
            )
    rows = _observed_rows(con, servers, observations, result)
    batch = _sessions(rows)
    kept = _latest_per_session(rows, result)
    for row in kept:
        result.count_gpu(row["gpu_name_provider"], row["gpu_id"], row["gpu_family"], 1)
    with transaction(con):
        _replace_history(con, kept, batch, result)
        record(con, result, fp)
    return result


def _observed_rows(
    con: duckdb.DuckDBPyConnection,
    servers: dict[str, dict[str, str]],
    observations: list[_Observation],
    result: ImportResult,
) -> list[dict]:
    """Observation-shaped rows (history.OBSERVED_COLUMNS, plus recorded_at), validated."""
    fx_cache: dict[tuple[str, date], Decimal] = {}
    gpu_cache: dict[str, tuple[str, str | None, str | None]] = {}
    rows = []
    for obs in observations:
        server = servers.get(obs.server_id)
        if server is None:
            result.excluded["price_history rows of servers missing from servers.csv"] += 1
            continue
        count = _decimal(server["gpu_count"], f"server {obs.server_id}") or Decimal(0)
        if not server["gpu_model"].strip() or count <= 0:
            result.excluded["rows of servers without a GPU (CPU-only)"] += 1
            continue
        if obs.price_hourly is not None and obs.price_hourly > 0:
            hourly = obs.price_hourly
        elif obs.price_monthly is not None and obs.price_monthly > 0:
            hourly = price_per_hour(obs.price_monthly, "month", "instance", count)
        else:
            result.excluded["rows without a positive price"] += 1
            continue
        if obs.server_id not in gpu_cache:
            gpu_cache[obs.server_id] = _gpu(server)
        gpu_name, gpu_id, gpu_family = gpu_cache[obs.server_id]
        currency = server["currency"].strip().upper() or "USD"
        day = obs.recorded_at.date()
        if (currency, day) not in fx_cache:
            fx_cache[(currency, day)] = fx_rate(con, currency, day)[0]
        hourly_usd = quantize_money(to_usd(hourly, fx_cache[(currency, day)]))
        provider = server["provider_id"]
        region = server["location"].strip() or "global"
        rows.append(
            {
                "recorded_at": obs.recorded_at,
                "offer_id": offer_id(
                    provider, f"{DATASET}:{obs.server_id}", region, "on_demand", None
                ),
                "provider": provider,
                "instance_type": server["name"].strip() or obs.server_id,
                "region": region,
                "pricing": "on_demand",
                "reserved_term_months": None,
                "gpu_name_provider": gpu_name,
                "gpu_id": gpu_id,
                "gpu_family": gpu_family,
                "gpu_count": count,
                "price": quantize_money(hourly),
                "currency": currency,
                "price_per_hour_usd": hourly_usd,
                "serverless": False,
                "price_per_gpu_hour_usd": share_per_gpu_usd(hourly_usd, count),
                # the dataset's price is the instance-hour price (a monthly one converted above)
                "price_unit": "hour",
                "price_per": "instance",
                "price_per_hour": quantize_money(hourly),
                "cloud_tier": None,  # the dataset names no product tier
            }
        )
    return rows


def _sessions(rows: list[dict]) -> list[list[object]]:
    """Assign each row its provider's session (a run of rows with gaps <= SESSION_GAP).

    Sets ``scrape_id`` on every row; returns the batch rows (session id, provider, start, coverage).
    """
    batch: list[list[object]] = []
    by_provider: dict[str, list[dict]] = {}
    for row in rows:
        by_provider.setdefault(row["provider"], []).append(row)
    for provider, items in sorted(by_provider.items()):
        items.sort(key=lambda r: r["recorded_at"])
        start = last = None
        for row in items:
            if last is None or row["recorded_at"] - last > SESSION_GAP:
                start = row["recorded_at"]
                # a session lists every server the site had for the provider: full coverage
                session = f"{DATASET}:{provider}@{start.isoformat()}"
                batch.append([session, provider, start, "full"])
            row["scrape_id"] = batch[-1][0]
            last = row["recorded_at"]
    return batch


def _latest_per_session(rows: list[dict], result: ImportResult) -> list[dict]:
    """The latest row of each server in each session (rows are in time order per provider);
    the others are counted as excluded."""
    latest: dict[tuple[str, str], dict] = {}
    for row in rows:
        key = (row["scrape_id"], row["offer_id"])
        if key in latest:
            result.excluded["repeated rows of a server within one session (latest kept)"] += 1
        latest[key] = row
    return list(latest.values())


def _replace_history(
    con: duckdb.DuckDBPyConnection,
    rows: list[dict],
    batch: list[list[object]],
    result: ImportResult,
) -> None:
    """Replace this source's intervals with those of ``rows`` (one per server and session)."""
    earlier = con.execute(
        "select min(valid_from) from offer_history where source = ?", [SOURCE]
    ).fetchone()
    if earlier and earlier[0] is not None:
        mark_dirty(con, earlier[0])
    con.execute("delete from offer_history where source = ?", [SOURCE])
    con.execute(
        f"create or replace temp table {BATCH_TABLE}"
        " (scrape_id varchar, provider varchar, observed_at timestamptz, coverage varchar)"
    )
    con.execute(
        f"create or replace temp table {OBSERVED_TABLE} ("
        "scrape_id varchar, offer_id varchar, provider varchar, instance_type varchar,"
        " region varchar, pricing varchar, reserved_term_months integer, gpu_name_provider varchar,"
        " gpu_id varchar, gpu_count decimal(10, 4), price decimal(18, 6), currency varchar,"
        " price_per_hour_usd decimal(18, 6), serverless boolean,"
        " price_per_gpu_hour_usd decimal(18, 6), price_unit varchar, price_per varchar,"
        " price_per_hour decimal(18, 6), cloud_tier varchar)"
    )
    bulk_insert(con, BATCH_TABLE, ["scrape_id", "provider", "observed_at", "coverage"], batch)
    bulk_insert(
        con,
        OBSERVED_TABLE,
        list(OBSERVED_COLUMNS),
        [[r[c] for c in OBSERVED_COLUMNS] for r in rows],
    )
    changes = apply_batch(con, source=SOURCE)
    # the dataset ends at each provider's last session: nothing is known after it
    con.execute(
        f"""
        update offer_history as h set valid_to = last.observed_at
        from (select provider, max(observed_at) as observed_at from {BATCH_TABLE}
              group by provider) as last
        where h.source = ? and h.valid_to is null and h.provider = last.provider
        """,
        [SOURCE],
    )
    # a server's GPU name is constant, so its family labels every interval of the offer
    families = sorted({(r["offer_id"], r["gpu_family"]) for r in rows if r["gpu_family"]})
    if families:
        con.execute(
            "create or replace temp table _history_families (offer_id varchar, gpu_family varchar)"
        )
        bulk_insert(
            con, "_history_families", ["offer_id", "gpu_family"], [list(f) for f in families]
        )
        con.execute(
            "update offer_history as h set gpu_family = f.gpu_family from _history_families as f"
            " where h.source = ? and h.offer_id = f.offer_id",
            [SOURCE],
        )
    result.rows_written = {"offer_history": changes["opened"]}
    times = [b[2] for b in batch]
    result.first_observed_at = min(times) if times else None  # type: ignore[type-var]
    result.last_observed_at = max(times) if times else None  # type: ignore[type-var]
