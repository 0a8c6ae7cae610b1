"""The synthetic GPU market behind ``benchmarks/history_scale.py``: a catalogue of offers whose
prices change at realistic rates (``Rates``), generated one simulated day at a time."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pyarrow as pa

# (canonical GPU name as in warehouse/seeds/gpus.csv, GB per GPU, USD per GPU-hour at the start)
GPU_MODELS: tuple[tuple[str, int, float], ...] = (
    ("NVIDIA H100 SXM5 80GB", 80, 3.20),
    ("NVIDIA H100 PCIe 80GB", 80, 2.60),
    ("NVIDIA H200 SXM 141GB", 141, 4.20),
    ("NVIDIA B200 SXM 180GB (HGX B200)", 180, 6.50),
    ("NVIDIA A100 SXM4 80GB", 80, 1.90),
    ("NVIDIA A100 PCIe 40GB", 40, 1.30),
    ("NVIDIA L40S 48GB", 48, 1.10),
    ("NVIDIA L4 24GB", 24, 0.55),
    ("NVIDIA A10 24GB", 24, 0.65),
    ("NVIDIA GeForce RTX 4090 24GB", 24, 0.50),
    ("NVIDIA RTX A6000 48GB", 48, 0.70),
    ("AMD Instinct MI300X 192GB", 192, 2.90),
)
GPU_COUNTS = (1, 2, 4, 8)
REGIONS = ("us-east", "us-west", "eu-central", "eu-north", "ap-southeast", "global")
HOURS_PER_MONTH = 730
EUR_USD = 1.08  # only shapes the generated EUR list prices; the loader converts with the seed


@dataclass(frozen=True)
class Rates:
    """How often things change (probabilities). Defaults give ~3 % of offers changing a day."""

    on_demand_change_per_day: float = 0.015
    reserved_change_per_day: float = 0.003
    spot_change_per_day: float = 0.06  # spot prices move most
    disappear_per_day: float = 0.002
    reappear_per_day: float = 0.05
    scrape_failure_per_hour: float = 0.003
    outage_per_day: float = 0.002  # a provider down for 2-12 hours


@dataclass
class CatalogOffer:
    idx: int
    provider_idx: int
    provider: str
    instance_type: str
    region: str
    pricing: str
    term: int | None
    gpu_name: str
    vram_gb: int
    gpu_count: int
    currency: str
    price_unit: str
    price_per: str
    price: float  # current native price
    active: bool = True


@dataclass
class Day:
    """One simulated day: price segments per offer and the scrapes of every provider-hour."""

    start: datetime
    segments: list[tuple[int, int, int, float]]  # offer idx, from hour, to hour (excl.), price
    scrapes: list[tuple[str, str, int, int, datetime, str]]  # id, provider, idx, hour, at, status


@dataclass
class Generator:
    """Deterministic (seeded) hourly market of ``providers`` x ``offers`` offers.

    With ``record_truth`` it keeps every offer's price per absolute hour (for tests).
    """

    providers: int = 30
    offers: int = 300
    start: datetime = datetime(2023, 11, 1, tzinfo=UTC)
    seed: int = 7
    rates: Rates = field(default_factory=Rates)
    record_truth: bool = False
    catalog: list[CatalogOffer] = field(init=False)
    truth: dict[int, list[tuple[int, int, float]]] = field(init=False, default_factory=dict)
    _rng: random.Random = field(init=False)
    _day: int = field(init=False, default=0)
    _outage_until: dict[int, int] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self.catalog = []
        for p in range(self.providers):
            self.catalog.extend(self._provider_offers(p))

    def _provider_offers(self, p: int) -> list[CatalogOffer]:
        rng = self._rng
        provider = f"gen{p:02d}"
        # a few providers quote EUR per instance-month, some USD per GPU-hour, most per instance
        currency, unit, per = (
            ("EUR", "month", "instance")
            if p % 15 == 14
            else ("USD", "hour", "gpu")
            if p % 3 == 0
            else ("USD", "hour", "instance")
        )
        models = rng.sample(GPU_MODELS, k=min(len(GPU_MODELS), 6 + p % 4))
        factor = rng.uniform(0.8, 1.3)
        seen: set[tuple[str, str, str]] = set()
        out = []
        while len(out) < self.offers:
            name, vram, base = rng.choice(models)
            count = rng.choice(GPU_COUNTS)
            region = rng.choice(REGIONS)
            roll = rng.random()
            pricing, term, mult = (
                ("on_demand", None, 1.0)
                if roll < 0.6
                else ("spot", None, rng.uniform(0.35, 0.7))
                if roll < 0.9
                else ("reserved", rng.choice((12, 36)), 0.7)
            )
            variant = len(out)
            instance_type = f"{count}x-{name.split()[1].lower()}-{variant}"
            if (instance_type, region, pricing) in seen:
                continue
            seen.add((instance_type, region, pricing))
            usd_gpu_hour = base * factor * mult
            out.append(
                CatalogOffer(
                    idx=len(self.catalog) + len(out),
                    provider_idx=p,
                    provider=provider,
                    instance_type=instance_type,
                    region=region,
                    pricing=pricing,
                    term=term,
                    gpu_name=name,
                    vram_gb=vram,
                    gpu_count=count,
                    currency=currency,
                    price_unit=unit,
                    price_per=per,
                    price=self._native(usd_gpu_hour, count, currency, unit, per),
                    active=rng.random() < 0.9,
                )
            )
        return out

    @staticmethod
    def _native(usd_gpu_hour: float, count: int, currency: str, unit: str, per: str) -> float:
        if unit == "month":
            return round(usd_gpu_hour * count * HOURS_PER_MONTH / EUR_USD, 2)
        return round(usd_gpu_hour * (count if per == "instance" else 1), 3)

    def catalog_table(self) -> pa.Table:
        cols = (
            "idx",
            "provider_idx",
            "provider",
            "instance_type",
            "region",
            "pricing",
            "term",
            "gpu_name",
            "vram_gb",
            "gpu_count",
            "currency",
            "price_unit",
            "price_per",
        )
        return pa.table({c: [getattr(o, c) for o in self.catalog] for c in cols})

    def _change(self, offer: CatalogOffer) -> float:
        # mostly cuts, some rises; spot swings both ways
        low, high = (0.8, 1.2) if offer.pricing == "spot" else (0.88, 1.05)
        digits = 2 if offer.price_unit == "month" else 3
        return max(round(offer.price * self._rng.uniform(low, high), digits), 10**-digits)

    def next_day(self) -> Day:
        rng, rates = self._rng, self.rates
        start = self.start + timedelta(days=self._day)
        base_hour = self._day * 24
        segments: list[tuple[int, int, int, float]] = []
        for offer in self.catalog:
            points: list[tuple[int, float | None]] = [(0, offer.price if offer.active else None)]
            if offer.active and rng.random() < rates.disappear_per_day:
                offer.active = False
                points.append((rng.randrange(1, 24), None))
            elif not offer.active and rng.random() < rates.reappear_per_day:
                offer.active = True
                points.append((rng.randrange(1, 24), offer.price))
            chance = {
                "spot": rates.spot_change_per_day,
                "reserved": rates.reserved_change_per_day,
            }.get(offer.pricing, rates.on_demand_change_per_day)
            if offer.active and rng.random() < chance:
                offer.price = self._change(offer)
                hour = rng.randrange(1, 24)
                points = [pt for pt in points if pt[0] < hour] + [(hour, offer.price)]
            points.sort()
            for (h, price), (h_next, _) in zip(points, [*points[1:], (24, None)], strict=True):
                if price is not None and h < h_next:
                    segments.append((offer.idx, h, h_next, price))
                    if self.record_truth:
                        self._record(offer.idx, base_hour + h, base_hour + h_next, price)
        scrapes = []
        for p in range(self.providers):
            if rng.random() < rates.outage_per_day:
                self._outage_until[p] = base_hour + rng.randrange(0, 24) + rng.randrange(2, 13)
            for h in range(24):
                at = start + timedelta(hours=h, minutes=(7 * p) % 50, seconds=p)
                down = base_hour + h < self._outage_until.get(p, -1)
                failed = down or rng.random() < rates.scrape_failure_per_hour
                scrapes.append(
                    (
                        f"gen-{p:02d}-{base_hour + h}",
                        f"gen{p:02d}",
                        p,
                        h,
                        at,
                        "failed" if failed else "success",
                    )
                )
        self._day += 1
        return Day(start, segments, scrapes)

    def _record(self, idx: int, h_from: int, h_to: int, price: float) -> None:
        spans = self.truth.setdefault(idx, [])
        if spans and spans[-1][1] == h_from and spans[-1][2] == price:
            spans[-1] = (spans[-1][0], h_to, price)
        else:
            spans.append((h_from, h_to, price))


def days(gen: Generator, count: int) -> Iterator[Day]:
    for _ in range(count):
        yield gen.next_day()
