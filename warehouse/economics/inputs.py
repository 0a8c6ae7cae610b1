"""Model inputs: a reference model (``ModelSpec``) and what a tier that may land on several GPUs
guarantees (``guaranteed_minimum`` of their ``warehouse.gpus.GpuSpec`` rows)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from warehouse.gpus import GpuSpec


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One reference model (a row of ``seeds/models.csv``). Parameters in billions."""

    model_id: str
    name: str
    hf_repo: str
    architecture: str  # "dense" | "moe"
    params_total_b: float
    params_active_b: float
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    kv_latent_dim: int | None  # MLA: compressed KV + decoupled rope key per token per layer
    max_context_tokens: int
    sliding_window_tokens: int | None
    sliding_window_layers: int
    num_experts: int | None
    experts_per_token: int | None
    vocab_size: int  # tokens: the embedding table and the lm_head are vocab_size x hidden_size
    tied_embeddings: bool  # the lm_head is the embedding table (counted once in params_total_b)
    checkpoint_precision: str  # precision the weights are published in (bf16, fp8, fp4)
    source_url: str

    @property
    def is_moe(self) -> bool:
        return self.architecture == "moe"

    @property
    def expert_params_b(self) -> float:
        """Parameters (billions) in routed experts, summed over all experts and layers.

        Derived from total/active counts: total = shared + E*e, active = shared + k*e, so
        e = (total - active) / (E - k). Zero for dense models.
        """
        if not self.is_moe or not self.num_experts or not self.experts_per_token:
            return 0.0
        per_expert = (self.params_total_b - self.params_active_b) / (
            self.num_experts - self.experts_per_token
        )
        return per_expert * self.num_experts

    @property
    def routed_params_active_b(self) -> float:
        """Routed-expert parameters (billions) one token runs through: k of E experts per layer."""
        if not self.num_experts or not self.experts_per_token:
            return 0.0
        return self.expert_params_b * self.experts_per_token / self.num_experts

    @property
    def shared_params_b(self) -> float:
        """Parameters every token uses: attention, embeddings, dense layers, shared experts."""
        return self.params_total_b - self.expert_params_b

    @property
    def vocab_params_b(self) -> float:
        """Parameters (billions) of one vocabulary matrix: the lm_head, and the embedding table
        (a second matrix of the same shape unless ``tied_embeddings``)."""
        return self.vocab_size * self.hidden_size / 1e9

    @property
    def vocab_matrices_params_b(self) -> float:
        """Parameters stored outside the transformer blocks: lm_head and embedding table."""
        return self.vocab_params_b * (1 if self.tied_embeddings else 2)

    @property
    def block_params_total_b(self) -> float:
        """Parameters inside the transformer blocks, the ones a quantized checkpoint quantizes."""
        return self.params_total_b - self.vocab_matrices_params_b


def _least(values: Iterable[float | None]) -> float | None:
    # A rate one candidate lacks (None or 0: no such tensor unit) is not guaranteed.
    found = list(values)
    return None if any(not v for v in found) else min(v for v in found if v)


def guaranteed_minimum(specs: Iterable[GpuSpec], vram_gb: float | None = None) -> GpuSpec:
    """What a tier that may land on any of ``specs`` guarantees, as one ``GpuSpec``.

    Every figure is its minimum over the candidates; a throughput or precision one candidate
    lacks is absent; memory is further capped at ``vram_gb`` (GB per GPU, the tier's promise)
    when given. Interconnect kind and vendor are the first spec's (pass the tier's ``gpu_id``
    first). ``gpu_id`` names the candidates and the cap, ``min(a40, rtx-a6000; 48 GB)``, so
    estimates that cannot run say which guarantee they were judged on. Raises ValueError for no
    specs.
    """
    found = list(specs)
    if not found:
        raise ValueError("guaranteed_minimum needs at least one GPU spec")
    memory = min(s.vram_gb for s in found)
    if vram_gb is not None:
        memory = min(memory, vram_gb)
    ids = ", ".join(sorted({s.gpu_id for s in found}))
    return replace(
        found[0],
        gpu_id=f"min({ids}; {memory:g} GB)",
        vram_gb=memory,
        memory_bandwidth_gbps=min(s.memory_bandwidth_gbps for s in found),
        bf16_tflops_dense=_least(s.bf16_tflops_dense for s in found),
        fp16_tflops_dense=_least(s.fp16_tflops_dense for s in found),
        fp8_tflops_dense=_least(s.fp8_tflops_dense for s in found),
        int8_tops_dense=_least(s.int8_tops_dense for s in found),
        fp4_tflops_dense=_least(s.fp4_tflops_dense for s in found),
        fp8_support=all(s.fp8_support for s in found),
        bf16_support=all(s.bf16_support for s in found),
        interconnect_bandwidth_gbps=_least(s.interconnect_bandwidth_gbps for s in found),
    )
