"""Every SQL statement the API runs, in one place. Values are always bound parameters;
identifiers (sort columns) come only from the allow-lists below."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# sort parameter -> column (allow-list; never interpolate user text into SQL)
INSTANCE_SORTS: dict[str, str] = {
    "price": "price_per_hour_usd",
    "price_per_gpu": "price_per_gpu_hour_usd",
    "price_per_vram_gb": "price_per_vram_gb_hour_usd",
    "vram": "vram_gb_per_gpu",
}

INSTANCE_COLUMNS = """
    offer_id as id, provider, instance_type, region, gpu_id as gpu_model, gpu_model as gpu_name,
    gpu_name as gpu_name_provider, gpu_vendor, gpu_count, vram_gb_per_gpu, vram_gb_total,
    memory_type, memory_bandwidth_gbps, fp8, bf16, interconnect, vcpus, ram_gb, storage_gb,
    pricing, reserved_term_months, price, currency, price_unit, price_per, price_per_hour,
    usd_per_unit, fx_rate_date, price_per_hour_usd, price_per_gpu_hour_usd,
    price_per_vram_gb_hour_usd, serverless, observed_at, source_url
"""


@dataclass
class Where:
    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, clause: str, *params: Any) -> None:
        self.clauses.append(clause)
        self.params.extend(params)

    def sql(self) -> str:
        return ("where " + " and ".join(self.clauses)) if self.clauses else ""


def instances_where(f: dict[str, Any]) -> Where:
    """Filters of GET /instances -> a bound where clause over current_offers."""
    w = Where()
    if f.get("min_vram") is not None:
        w.add("vram_gb_per_gpu >= ?", f["min_vram"])
    if f.get("min_total_vram") is not None:
        w.add("vram_gb_total >= ?", f["min_total_vram"])
    if f.get("fp8") is not None:
        w.add("fp8 = ?", f["fp8"])
    if f.get("bf16") is not None:
        w.add("bf16 = ?", f["bf16"])
    if f.get("gpu"):
        ors = []
        for gpu in f["gpu"]:
            ors.append("(gpu_id = ? or gpu_id like ? escape '\\')")
            w.params.extend([gpu, gpu.replace("_", "\\_").replace("%", "\\%") + "-%"])
        w.clauses.append("(" + " or ".join(ors) + ")")
    if f.get("provider"):
        w.add(f"provider in ({', '.join('?' for _ in f['provider'])})", *f["provider"])
    if f.get("pricing"):
        w.add(f"pricing in ({', '.join('?' for _ in f['pricing'])})", *f["pricing"])
    if f.get("serverless") is not None:
        w.add("serverless = ?", f["serverless"])
    if f.get("max_price") is not None:
        w.add("price_per_hour_usd <= ?", f["max_price"])
    if f.get("max_price_per_gpu") is not None:
        w.add("price_per_gpu_hour_usd <= ?", f["max_price_per_gpu"])
    if f.get("min_gpus") is not None:
        w.add("gpu_count >= ?", f["min_gpus"])
    if f.get("region"):
        w.add(f"region in ({', '.join('?' for _ in f['region'])})", *f["region"])
    return w


def instances_sql(where: Where, sort: str) -> tuple[str, str]:
    """(page query, count query). ``sort`` must be a key of INSTANCE_SORTS."""
    column = INSTANCE_SORTS[sort]
    page = (
        f"select {INSTANCE_COLUMNS} from current_offers {where.sql()}"
        f" order by {column} asc nulls last, offer_id limit ? offset ?"
    )
    count = f"select count(*) as n from current_offers {where.sql()}"
    return page, count


GPUS_SQL = "select * from gpus order by vendor, gpu_id"
PROVIDERS_SQL = "select * from provider_status order by provider"
HEALTH_SQL = "select count(*) as offers, count(distinct provider) as providers from current_offers"
