"""The memoised throughput estimator the estimates are made with.

``Estimator`` is ``economics.estimate_throughput`` memoised per (model, GPU, count, precision,
shape): many offers share one configuration. The memo is bounded (``MEMO_ENTRIES``, least
recently used out first): the API keeps one estimator per snapshot and each distinct query shape
is a new key, so unbounded, distinct /estimates queries grew the server without limit (issue 27).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from warehouse import economics
from warehouse.vocabulary import STANDARD_PRECISION


def whole_gpus(gpu_count: Decimal | float | int) -> int | None:
    """``gpu_count`` as an int when it is a whole positive number, else None (a GPU share)."""
    value = Decimal(str(gpu_count))
    return int(value) if value > 0 and value == value.to_integral_value() else None


def precision_for(requested: str, model: economics.ModelSpec, gpu: economics.GpuSpec) -> str:
    """The precision to run: ``standard`` -> ``economics.standard_precision``; else as asked."""
    if requested == STANDARD_PRECISION:
        return economics.standard_precision(model, gpu)
    return requested


MEMO_ENTRIES = 20_000  # estimates kept per estimator (each a few hundred bytes)


@dataclass
class Estimator:
    """Memoised ``economics.estimate_throughput``: many offers share one (GPU, count) config."""

    models: Mapping[str, economics.ModelSpec]
    gpus: Mapping[str, economics.GpuSpec]

    def __post_init__(self) -> None:
        # bounded: the API keeps one estimator per snapshot, and each distinct query shape
        # (input/output tokens, concurrency) is a new key; unbounded, a client sending distinct
        # /estimates queries grew the server without limit (issue 27)
        self._estimate = functools.lru_cache(maxsize=MEMO_ENTRIES)(self._compute)
        # Guaranteed-minimum specs of multi-GPU tiers, keyed by their gpu_id label.
        self._minimums: dict[str, economics.GpuSpec] = {}

    def spec(self, gpu_id: str) -> economics.GpuSpec:
        """A canonical GPU's spec, or a tier minimum made by :meth:`offer_spec`; KeyError else."""
        return self._minimums.get(gpu_id) or self.gpus[gpu_id]

    def offer_spec(self, offer: Mapping[str, Any]) -> economics.GpuSpec | None:
        """The GPU an offer is estimated on; None when a GPU it names is not in the table.

        Usually the spec of ``gpu_id``. An offer listing several ``gpu_candidates`` (a serverless
        tier that may land on any of them), or promising less memory per GPU
        (``vram_gb_guaranteed``) than the datasheet, gets ``economics.guaranteed_minimum`` of
        its candidates instead; both keys are optional.
        """
        gpu_id = offer["gpu_id"]
        gpu = self.gpus.get(gpu_id)
        if gpu is None:
            return None
        candidates = list(offer.get("gpu_candidates") or [gpu_id])
        guaranteed = offer.get("vram_gb_guaranteed")
        vram = None if guaranteed is None else float(guaranteed)
        if candidates == [gpu_id] and (vram is None or vram >= gpu.vram_gb):
            return gpu
        if any(c not in self.gpus for c in candidates):
            return None
        ordered = [gpu_id, *(c for c in candidates if c != gpu_id)]
        spec = economics.guaranteed_minimum([self.gpus[c] for c in ordered], vram)
        return self._minimums.setdefault(spec.gpu_id, spec)

    def throughput(
        self,
        model_id: str,
        gpu_id: str,
        gpu_count: int,
        precision: str,
        input_tokens: int,
        output_tokens: int,
        concurrency: int | None = None,
        kv_admission: str = economics.DEFAULT_KV_ADMISSION,
    ) -> economics.ThroughputEstimate | str:
        """The estimate, or a one-line reason why none can be made (missing spec, bad input)."""
        return self._estimate(
            model_id,
            gpu_id,
            gpu_count,
            precision,
            input_tokens,
            output_tokens,
            concurrency,
            kv_admission,
        )

    def _compute(
        self,
        model_id: str,
        gpu_id: str,
        gpu_count: int,
        precision: str,
        input_tokens: int,
        output_tokens: int,
        concurrency: int | None,
        kv_admission: str,
    ) -> economics.ThroughputEstimate | str:
        model, gpu = self.models[model_id], self.spec(gpu_id)
        try:
            return economics.estimate_throughput(
                model,
                precision_for(precision, model, gpu),
                gpu,
                gpu_count,
                input_tokens,
                output_tokens,
                concurrency=concurrency,
                kv_admission=kv_admission,
            )
        except ValueError as exc:  # e.g. a GPU whose spec lists no rate for that precision
            return str(exc)

    def memo_entries(self) -> int:
        """Estimates held now (at most ``MEMO_ENTRIES``)."""
        return self._estimate.cache_info().currsize
