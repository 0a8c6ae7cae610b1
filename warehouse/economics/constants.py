"""Every constant of the economics model, with its value and source (docs/estimates.md says
why each has the value it has). Units in the names: ``_gb`` = 10^9 bytes, ``_s`` = seconds.
"""

from __future__ import annotations

from decimal import Decimal

from warehouse.units import HOURS_PER_MONTH
from warehouse.vocabulary import KvAdmission

# --------------------------------------------------------------------------------------------
# Precisions. Bytes per stored weight. int4/fp4 carry their block scales: int4 is W4A16 with one
# fp16 scale per 128-weight group (AWQ/GPTQ default, 2/128 B), fp4 is MXFP4 with one 8-bit scale
# per 32 weights (OCP MX spec, 1/32 B) -- the format gpt-oss ships in.
# (PRECISIONS, the precision names: warehouse.vocabulary)
WEIGHT_BYTES_PER_PARAM = {
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5 + 2 / 128,
    "fp4": 0.5 + 1 / 32,
}
KV_BYTES_PER_ELEMENT = {"fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0}
# The embedding table and the lm_head stay 16-bit in quantized checkpoints: "Only the weights
# and activations of the linear operators within transformers blocks are quantized" (NVIDIA's
# FP8 and FP4 Model Optimizer checkpoints,
# https://huggingface.co/nvidia/Llama-3.1-405B-Instruct-FP8,
# https://huggingface.co/nvidia/Llama-3.1-405B-Instruct-FP4; their hf_quant_config.json lists
# lm_head in exclude_modules, which vLLM honours:
# https://docs.vllm.ai/en/stable/api/vllm/model_executor/layers/quantization/modelopt/).
# The lm_head therefore runs at the GPU's 16-bit rate; a decode step reads it whole but only the
# batch's rows of the embedding table.
VOCAB_WEIGHT_BYTES_PER_PARAM = 2.0

# --------------------------------------------------------------------------------------------
# Memory. vLLM's default gpu_memory_utilization is 0.90: the engine never touches the last 10%
# (CUDA context, NCCL buffers, allocator fragmentation). On top of the weights the engine keeps
# an activation workspace for the largest prefill chunk plus CUDA-graph pools and sampler
# buffers; vLLM's memory profiler typically reports 1-4 GB per GPU for 8k-token chunks, we take
# 2 GB. Whatever is left is KV cache.
GPU_MEMORY_UTILIZATION = 0.90
ACTIVATION_WORKSPACE_GB_PER_GPU = 2.0
# Listed memory is binary on HBM parts: a "80 GB" H100 SXM shows 81,559 MiB in nvidia-smi
# (85.5 x 10^9 bytes), an H200 "141 GB" 143,771 MiB (150.8 x 10^9), a B200 "180 GB" 183,359 MiB
# (192.3 x 10^9): HBM stacks come in GiB. So the bytes behind a listed HBM "GB" are 2^30. GDDR
# boards with ECC (L40S "48 GB": 46,068 MiB = 48.3 x 10^9) expose about the decimal figure, so
# they keep 10^9 (the conservative reading).
BYTES_PER_LISTED_GB_HBM = 2**30
BYTES_PER_LISTED_GB_OTHER = 10**9

# Serving engines cap the running batch: TensorRT-LLM's trtllm-bench engines run max batch 2048
# (every log of the 0.16 sweep in the calibration set), NVIDIA's MLPerf v5.0 Llama 2 70B engines
# batch 2048 per GPU, Krai's B200 run 1572; vLLM V1 max_num_seqs defaults to 1024 on 80 GB-class
# GPUs. Beyond ~1-2k sequences decode is compute bound on every GPU in the table, so the cap
# mostly guards memory-rich, compute-poor cases from absurd batches.
DEFAULT_MAX_BATCH = 2048

# The serving engine every estimate assumes, served as its assumptions' engine_class: in-flight
# (continuous) batching with chunked prefill, a paged KV cache, CUDA graphs for decode and
# no-evict admission (the throughput formula, docs/estimates.md section 2). The calibration set
# is runs of these engines; an engine without in-flight batching (static batches, naive
# HF transformers serving) runs well below the estimate.
ENGINE_CLASS = "in-flight batching server (TensorRT-LLM / vLLM / SGLang class)"

# Tensor-parallel degrees considered: powers of two up to one 8-GPU node (NVLink / xGMI domain).
TP_DEGREES = (1, 2, 4, 8)

# --------------------------------------------------------------------------------------------
# Efficiencies (fraction of datasheet peak actually achieved). Calibrated against the published
# measurements in docs/estimates_calibration.csv; rationale per constant in docs/estimates.md.
#
# Decode reads every touched weight and the whole KV cache once per step. Good decode kernels
# (TRT-LLM/FlashInfer GEMV + paged attention) reach 75-85% of HBM bandwidth in microbenchmarks;
# the step's kernels together reach 0.70. The same on Blackwell's HBM3e: Azure measured 92% of
# GB200's 8 TB/s in a STREAM-like test, the share HBM3 reaches on H100; what lowers Blackwell's
# end-to-end share is DECODE_LAYER_OVERHEAD_S, which does not shrink with bandwidth.
HBM_BANDWIDTH_EFFICIENCY = 0.70
# Decode attention reads every running sequence's paged KV cache once per step: long, contiguous
# pages with no reuse, the access pattern of a STREAM copy (92% of HBM peak on GB200, Azure).
# Paged-attention decode kernels (TensorRT-LLM XQA, FlashInfer, FlashAttention-3) run closer to
# that than the weight GEMMs, whose tiles also wait on tensor cores and epilogues: 0.85, between
# the two. Not fitted: the only public long-output sweep (TensorRT-LLM 0.16, TP8) runs slower
# than this predicts (1.3-1.6x at 128/4096-8192), and no 2025-engine long-output run is in the set.
ATTENTION_HBM_EFFICIENCY = 0.85
# Large-batch decode GEMMs (M = batch of 256-1024 tokens) on Hopper reach ~60-70% of dense peak
# in cuBLAS/CUTLASS (Azure's cuBLASLt FP8 GEMMs on H100 SXM: 1,382 of 1,979 TFLOPS): 0.70
# (issue 24; it was 0.60 when the step's norms, rotary and sampling were folded in).
DECODE_COMPUTE_EFFICIENCY = 0.70
# Prefill is one big GEMM per layer (thousands of tokens); published MFU for prefill on H100 is
# 50-65% (FlashAttention-3 + FP8 GEMM); refitted to 0.70 (was 0.55) on the prefill-dominated
# 2048/128 points in issue 24's first pass.
PREFILL_MFU = 0.70
# Fused-MoE decode kernels move weights less efficiently than a dense GEMV: many small expert
# GEMMs (a few tokens each), token permutation and routing. 0.60 of the dense bandwidth
# efficiency; the memory-bound MoE points (DeepSeek-R1 and gpt-oss-20b under SGLang at a
# concurrency limit) land at 1.27 and 1.24, the calibration set's median. (It was fitted when
# the model also read the MLPerf Mixtral rows as memory bound; with in-flight batching they are
# compute bound, which MOE_EXPERT_GEMM_EFFICIENCY covers.)
MOE_DECODE_EFFICIENCY = 0.60
# The routed experts' GEMMs, when the step is bound by their math, reach this share of the dense
# GEMMs' efficiency: the fused-MoE kernel also routes (top-k softmax), permutes tokens to experts
# and back, and pads each expert's rows to the tile. Measured as the same submitter's MoE run
# against its dense run on the same system and engine (MLPerf Offline, Mixtral 8x7B vs Llama 2
# 70B, both compute bound): with 1.0 the Mixtral rows sit 1.41x (NVIDIA v4.1, 8 x H100
# TensorRT-LLM), 1.22x (Dell v5.1, 8 x MI300X vLLM) and 1.19x (AMD v5.1, 8 x MI325X vLLM) above
# their dense rows; 0.75 brings the geometric mean of the three to 1.00 (1.12, 0.96, 0.94).
# Applied to the routed experts' share of the GEMM FLOPs only; attention, shared experts and
# dense layers run at the dense efficiency.
MOE_EXPERT_GEMM_EFFICIENCY = 0.75
# ROCm GEMMs reach a smaller share of MI300-series peak than CUDA on Hopper, so compute
# efficiencies are scaled by this factor on AMD parts (on top of the board-power limit,
# economics/power.py, which gives MI300X at 750 W 0.75 of the rate MI325X sustains at 1,000 W).
# Fitted so that the eight MLPerf MI300X/MI325X rows (v4.1 and v5.1, Llama 2 70B and Mixtral)
# have the median estimate/measured ratio of the NVIDIA datacenter MLPerf rows (H100 SXM, H200,
# B200, GB200: 1.17): a vendor factor must not tilt an AMD offer against an NVIDIA one. It was
# 0.55 when it also had to absorb MI300X's power limit, which put the MI325X rows at 0.80-0.94:
# the same vLLM build runs 1.24x faster on MI325X with the same datasheet peak (MLPerf v5.1,
# 34,520 vs 27,804 tok/s); 0.76 until the Mixtral rows' expert GEMMs were costed
# (MOE_EXPERT_GEMM_EFFICIENCY), which had held the AMD median up.
AMD_COMPUTE_EFFICIENCY_FACTOR = 0.84
# Per decode step fixed cost not hidden by CUDA graphs: scheduler, sampling, detokenisation
# hand-off. vLLM V1 / SGLang report ~0.1-0.5 ms per step with async scheduling; 0.3 ms.
DECODE_STEP_OVERHEAD_S = 0.0003
# Per layer and decode step: every kernel boundary (about ten per layer: norms, the QKV/O/MLP
# GEMMs, rotary, attention, all-reduces) drains and refills the GPU even inside a CUDA graph,
# ~2 us each. Fitted on the calibration set (the value that best separates step time from
# bandwidth on the TP1 MLPerf rows and the TP8 TensorRT-LLM sweep): 20 us, i.e. 1.6 ms per step
# for an 80-layer 70B, 2.5 ms for 405B, 0.6 ms for 8B. It does not shrink with bandwidth, which
# is why the end-to-end share of HBM bandwidth a decode step achieves is lower on Blackwell.
DECODE_LAYER_OVERHEAD_S = 20e-6
# NVFP4/MXFP4 GEMMs do not reach twice the FP8 rate their datasheet peak promises: block scales
# are applied in the epilogue, activations are quantised to FP4 on the fly, and decode-sized
# GEMMs stay bound by scale and epilogue traffic. Compute efficiencies are scaled by this factor
# when the compute precision is fp4. Fitted on the MLPerf v5.0/v5.1 Blackwell NVFP4 rows
# (B200 x1/x8 and GB200 x4 Llama 2 70B, B200 x8 Llama 3.1 8B, B200 x8 / GB200 x72 Llama 3.1
# 405B) against Krai's FP8 Llama 3.1 70B on the same B200 x8 (MLPerf v5.1 Open): per GPU the
# FP4 runs deliver ~1.6x the FP8 run on the same task, not 2x.
FP4_COMPUTE_EFFICIENCY_FACTOR = 0.70
# Tensor parallelism shards every decode GEMM's N (column-parallel) or K (row-parallel) by TP;
# at decode batch sizes the per-GPU GEMMs get so small that they no longer fill the SMs (Llama
# 70B at TP8: the QKV GEMM is 1,280 wide, 80 tiles of 128x128 at M = 1024 for 132 SMs). Decode
# GEMM compute efficiency is multiplied by this factor per doubling of TP (TP8: 0.51). Fitted
# on the TensorRT-LLM 0.16 trtllm-bench sweep of Llama 3.1 70B FP8 at TP8 on 8 x H100 and the
# TP2/TP4 MLPerf and blog rows; prefill GEMMs (thousands of rows) are not affected.
TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING = 0.80
# How the scheduler admits sequences against the KV cache (issue 24, fourth pass): the share of
# a sequence's output it must find KV room for before it starts. ``max_utilization`` (0.5): a
# sequence is admitted against what it holds, pages are allocated as it grows and a sequence is
# paused or preempted when the cache is full, so the running batch is set by the average
# occupancy (prompt + output/2): vLLM and SGLang always work this way, and NVIDIA's MLPerf
# TensorRT-LLM harness runs TensorRT-LLM's MAX_UTILIZATION policy (harness default,
# mlcommons/inference_results_v4.0 closed/NVIDIA/code/harness/harness_llm/main_llm.cc);
# TensorRT-LLM's tuning guide recommends it for throughput. ``guaranteed_no_evict``
# (1.0): TensorRT-LLM's library default GUARANTEED_NO_EVICT reserves the prompt plus the whole
# output at admission, so a long decode runs at most budget / KV(input + output) sequences (the
# policy every trtllm-bench log of the calibration sweep states). Estimates assume the tuned
# policy; a calibration point run with the default is estimated with it.
# (KvAdmission, the policy names: warehouse.vocabulary)
KV_ADMISSION_RESERVED_OUTPUT_FRACTION = {"max_utilization": 0.5, "guaranteed_no_evict": 1.0}
DEFAULT_KV_ADMISSION: KvAdmission = "max_utilization"

# Tensor-parallel all-reduce cost: two all-reduces of (tokens x hidden) bf16 activations per layer
# (after attention and after the MLP). Ring all-reduce moves 2(n-1)/n of the buffer per GPU.
# ``interconnect_bandwidth_gbps`` is read as the vendor's aggregate bidirectional figure
# (H100 NVLink 900 GB/s), so one direction is half of it. Efficiency = achieved NCCL bus
# bandwidth / link bandwidth; latency = per-collective fixed cost at small messages.
#   nvlink: nccl-tests reach ~370-480 GB/s busbw on 8x H100 (450 GB/s/direction) -> 0.80, and
#           custom all-reduce kernels finish a small message in ~6-10 us -> 8 us.
#   nvlink5: Blackwell NVSwitch baseboards (HGX B200/B300) and NVL72 racks, 900 GB/s per
#           direction: nccl-tests all_reduce on 8 GB200s across two NVL72 trays reach 811 GB/s
#           busbw -> 0.90; same small-message latency.
#   infinity_fabric (MI300X xGMI, fully connected 7 links): RCCL busbw ~300-350 of 448 GB/s ->
#           0.70; ~12 us latency.
#   pcie: peer-to-peer over the root complex (or through host memory on consumer cards) achieves
#         ~50-60% of the Gen4/Gen5 x16 link; ~25 us latency per collective.
#   roce: cross-node 400 Gb/s per GPU, ~40 us latency; only used if a caller forces TP across
#         nodes.
ALLREDUCE_EFFICIENCY = {
    "nvlink": 0.80,
    "nvlink5": 0.90,
    "nvlink_c2c": 0.80,
    "infinity_fabric": 0.70,
    "pcie": 0.55,
    "roce": 0.60,
}
ALLREDUCE_LATENCY_S = {
    "nvlink": 8e-6,
    "nvlink5": 8e-6,
    "nvlink_c2c": 8e-6,
    "infinity_fabric": 12e-6,
    "pcie": 25e-6,
    "roce": 40e-6,
}
ACTIVATION_BYTES = 2.0  # all-reduced activations are bf16/fp16 even for fp8/fp4 weights

# --------------------------------------------------------------------------------------------
# Time and money.
SECONDS_PER_DAY = 86_400
HOURS_PER_DAY = 24
# The month is the project's one month, warehouse.units.HOURS_PER_MONTH: 730 hours (8760 / 12),
# the month the providers bill by, so a monthly price converted to hourly at ingest comes back
# as the same monthly price here (docs/estimates.md, "The month").
DAYS_PER_MONTH = HOURS_PER_MONTH / HOURS_PER_DAY  # 30.41666... days, a Decimal
USD_QUANTUM = Decimal("0.000001")
# Serverless workers stay warm this long after their last request before scaling to zero unless
# the caller says otherwise (RunPod's default idle timeout is 5 s, Modal's scaledown window 60 s;
# 60 s is the conservative end).
DEFAULT_IDLE_TIMEOUT_S = 60.0
