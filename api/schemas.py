"""Response schemas (documentation of the wire format; rows are encoded straight from dicts).

Units are in the names: ``*_gb`` = 10^9 bytes, ``*_gbps`` = GB/s, ``*_usd`` = US dollars,
``*_hour`` = per hour. Times are UTC ISO 8601.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

import msgspec

Usd = Annotated[float, msgspec.Meta(description="US dollars")]


class InstanceItem(msgspec.Struct):
    id: Annotated[str, msgspec.Meta(description="Stable offer id: same provider, instance type, region and pricing model keep it across runs")]
    provider: str
    instance_type: str
    region: Annotated[str, msgspec.Meta(description="Provider region code, or 'global'")]
    gpu_model: Annotated[str | None, msgspec.Meta(description="Canonical GPU id (see GET /gpus)")]
    gpu_name: str | None
    gpu_name_provider: Annotated[str, msgspec.Meta(description="The provider's own spelling")]
    gpu_vendor: str | None
    gpu_count: Annotated[float, msgspec.Meta(description="GPUs per instance (fractional for shared GPUs)")]
    vram_gb_per_gpu: Annotated[float | None, msgspec.Meta(description="GB of GPU memory per GPU")]
    vram_gb_total: Annotated[float | None, msgspec.Meta(description="GB of GPU memory per instance")]
    memory_type: str | None
    memory_bandwidth_gbps: Annotated[float | None, msgspec.Meta(description="GB/s per GPU")]
    fp8: bool
    bf16: bool
    interconnect: str | None
    vcpus: float | None
    ram_gb: float | None
    storage_gb: float | None
    pricing: Annotated[str, msgspec.Meta(description="on_demand, spot or reserved")]
    reserved_term_months: int | None
    price: Annotated[float, msgspec.Meta(description="Price as the provider quotes it, in `currency` per `price_unit` per `price_per`")]
    currency: str
    price_unit: Annotated[str, msgspec.Meta(description="second, minute, hour or month")]
    price_per: Annotated[str, msgspec.Meta(description="instance or gpu")]
    price_per_hour: Annotated[float, msgspec.Meta(description="Instance-hour price in `currency` (months = 730 h)")]
    usd_per_unit: Annotated[float, msgspec.Meta(description="Exchange rate used, USD per unit of `currency`")]
    fx_rate_date: date
    price_per_hour_usd: Annotated[float, msgspec.Meta(description="USD per instance-hour")]
    price_per_gpu_hour_usd: Annotated[float, msgspec.Meta(description="USD per GPU-hour")]
    price_per_vram_gb_hour_usd: Annotated[float | None, msgspec.Meta(description="USD per GB of VRAM per hour")]
    serverless: bool
    observed_at: datetime
    source_url: str


class InstancesPage(msgspec.Struct):
    items: list[InstanceItem]
    total: Annotated[int, msgspec.Meta(description="Matching offers before limit/offset")]
    limit: int
    offset: int
    as_of: Annotated[datetime, msgspec.Meta(description="When the served snapshot was published")]


class Gpu(msgspec.Struct):
    gpu_id: str
    name: str
    vendor: str
    architecture: str | None
    vram_gb: float
    memory_type: str | None
    memory_bandwidth_gbps: float | None
    fp16_tflops_dense: float | None
    bf16_tflops_dense: float | None
    fp8_tflops_dense: float | None
    int8_tops_dense: float | None
    fp4_tflops_dense: float | None
    fp8_support: bool
    bf16_support: bool
    form_factor: str | None
    interconnect: str | None
    interconnect_bandwidth_gbps: float | None
    tdp_watts: int | None
    source_url: str


class GpuList(msgspec.Struct):
    items: list[Gpu]
    as_of: datetime


class ProviderStatus(msgspec.Struct):
    provider: str
    last_success_at: datetime | None
    data_observed_at: datetime | None
    last_failure_at: datetime | None
    last_error: str | None
    last_status: str
    last_attempt_at: datetime | None
    current_offer_count: int


class ProviderList(msgspec.Struct):
    items: list[ProviderStatus]
    as_of: datetime


class Health(msgspec.Struct):
    status: Annotated[str, msgspec.Meta(description="ok, or no_snapshot")]
    snapshot_id: str | None
    as_of: datetime | None
    offers: int
    providers: int


class ErrorBody(msgspec.Struct):
    status_code: int
    detail: str
    extra: list[dict] | None = None
