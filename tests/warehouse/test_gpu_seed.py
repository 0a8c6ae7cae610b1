"""The canonical GPU seed (``warehouse/seeds/gpus.csv``) and its alias table.

Checks the seed is internally consistent (every alias resolves, no duplicates, precision flags
agree with the numbers), pins a few datasheet values, and resolves spellings read straight from
the real captures in ``../shared/snapshots``.
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from dataclasses import fields
from pathlib import Path

import pytest

from warehouse.gpus import (
    ALIASES_CSV,
    GPU_COLUMNS,
    GPUS_CSV,
    GpuSpec,
    alias_table,
    load_gpus,
    normalise_gpu_name,
    resolve,
    strip_vendor_words,
)

HEADER = (
    "gpu_id,name,vendor,architecture,vram_gb,memory_type,memory_bandwidth_gbps,fp16_tflops_dense,"
    "bf16_tflops_dense,fp8_tflops_dense,int8_tops_dense,fp4_tflops_dense,fp8_support,bf16_support,"
    "form_factor,interconnect,interconnect_bandwidth_gbps,tdp_watts,source_url"
)
REQUIRED_GPU_IDS = {
    "h100-sxm", "h100-pcie", "h100-nvl", "h200", "h200-nvl", "gh200", "b200", "gb200", "b300",
    "gb300", "a100-40gb-sxm", "a100-80gb-sxm", "a100-40gb-pcie", "a100-80gb-pcie", "l40s", "l40",
    "l4", "a10", "a10g", "a40", "t4", "v100-16gb", "v100-32gb", "rtx-4090", "rtx-5090", "rtx-3090",
    "rtx-a6000", "rtx-6000-ada", "rtx-pro-6000", "rtx-a5000", "rtx-a4000", "rtx-4000-ada",
    "mi300x", "mi325x", "mi250x", "mi355x", "gaudi2", "gaudi3",
}  # fmt: skip
INTERCONNECTS = {"nvlink", "nvlink_bridge", "nvlink_c2c", "pcie", "infinity_fabric", "roce"}
FORM_FACTORS = {"SXM", "PCIe", "OAM", "superchip"}
# Architectures whose FP8 tensor rate is twice the BF16 rate at the same accumulator.
FP8_DOUBLES_BF16 = ("Hopper", "Blackwell", "Ada Lovelace")

# RunPod gpu type ids that deliberately do not resolve through the alias table: no seed row (no
# vendor figures), or a MIG slice, which is a share of a GPU rather than a GPU. The RunPod scraper
# emits a slice as its full GPU ("NVIDIA RTX PRO 6000 Blackwell Server Edition") with a fractional
# gpu_count, so the slice ids themselves never reach the resolver.
RUNPOD_UNSEEDED = {
    "unknown",
    "Tesla V100-FHHL-16GB",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 2g.48gb",
}
RUNPOD_GPU_TYPE_CAPTURES = (
    "2025-06-15T1027Z_graphql_gpuTypes.json",
    "c2026-09_graphql_gpuTypes_response.json",
)
MIB_TO_GB = 1.048576 / 1000


def _raw_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def test_gpus_csv_header_is_the_agreed_one() -> None:
    assert GPUS_CSV.read_text(encoding="utf-8").splitlines()[0] == HEADER


def test_gpu_ids_are_unique_lowercase_and_hyphenated() -> None:
    _, rows = _raw_rows(GPUS_CSV)
    ids = [row["gpu_id"] for row in rows]
    assert [gpu_id for gpu_id, n in Counter(ids).items() if n > 1] == []
    for gpu_id in ids:
        assert gpu_id == normalise_gpu_name(gpu_id).replace(" ", "-"), gpu_id
    assert len(load_gpus()) == len(ids)


def test_required_models_are_present() -> None:
    assert REQUIRED_GPU_IDS - load_gpus().keys() == set()
    assert len(load_gpus()) >= 30


def test_no_alias_is_listed_twice_after_normalisation() -> None:
    _, rows = _raw_rows(ALIASES_CSV)
    keys = Counter(normalise_gpu_name(row["alias"]) for row in rows)
    assert [key for key, n in keys.items() if n > 1] == []


def test_every_alias_resolves_to_its_gpu_id() -> None:
    gpus = load_gpus()
    _, rows = _raw_rows(ALIASES_CSV)
    for row in rows:
        assert row["gpu_id"] in gpus, row
        assert resolve(row["alias"]) == row["gpu_id"], row


def test_every_canonical_name_is_an_alias_of_its_own_row() -> None:
    for gpu_id, spec in load_gpus().items():
        assert resolve(spec.name) == gpu_id, spec.name


def test_numbers_are_positive_and_urls_are_https() -> None:
    for gpu_id, spec in load_gpus().items():
        assert spec.vram_gb > 0, gpu_id
        assert spec.memory_bandwidth_gbps > 0, gpu_id
        for value in (
            spec.fp16_tflops_dense,
            spec.bf16_tflops_dense,
            spec.fp8_tflops_dense,
            spec.int8_tops_dense,
            spec.fp4_tflops_dense,
            spec.interconnect_bandwidth_gbps,
            spec.tdp_watts,
        ):
            assert value is None or value > 0, gpu_id
        assert spec.source_url.startswith("https://"), gpu_id
        assert spec.vendor in {"NVIDIA", "AMD", "Intel"}, gpu_id
        assert spec.interconnect in INTERCONNECTS, gpu_id
        assert spec.form_factor in FORM_FACTORS, gpu_id
        assert spec.interconnect_bandwidth_gbps is not None, gpu_id


def test_precision_columns_are_empty_exactly_when_unsupported() -> None:
    for gpu_id, spec in load_gpus().items():
        assert (spec.fp8_tflops_dense is None) == (not spec.fp8_support), gpu_id
        assert (spec.bf16_tflops_dense is None) == (not spec.bf16_support), gpu_id
        if spec.fp4_tflops_dense is not None:
            assert spec.architecture.startswith("Blackwell") or spec.architecture == "CDNA 4"


def test_dense_fp8_is_twice_dense_bf16_on_hopper_blackwell_and_ada() -> None:
    # A sparsity figure copied into one column but not the other breaks the 2:1 ratio.
    checked = 0
    for gpu_id, spec in load_gpus().items():
        if not spec.architecture.startswith(FP8_DOUBLES_BF16):
            continue
        assert spec.fp8_tflops_dense is not None and spec.bf16_tflops_dense is not None, gpu_id
        ratio = spec.fp8_tflops_dense / spec.bf16_tflops_dense
        assert math.isclose(ratio, 2.0, rel_tol=0.10), (gpu_id, ratio)
        checked += 1
    assert checked >= 20


def test_datasheet_values_for_reference_gpus() -> None:
    gpus = load_gpus()
    h100 = gpus["h100-sxm"]
    assert (h100.vram_gb, h100.memory_bandwidth_gbps) == (80, 3350)
    assert h100.bf16_tflops_dense is not None and abs(h100.bf16_tflops_dense - 989) < 1
    assert (h100.interconnect, h100.interconnect_bandwidth_gbps) == ("nvlink", 900)
    assert gpus["a100-80gb-sxm"].memory_bandwidth_gbps == 2039
    assert gpus["a100-80gb-sxm"].fp8_tflops_dense is None
    mi300x = gpus["mi300x"]
    assert (mi300x.vram_gb, mi300x.memory_bandwidth_gbps) == (192, 5300)
    # B200 is per GPU, not the DGX/HGX 8-GPU total (1.44 TB, 72 PFLOPS FP8 sparse).
    assert gpus["b200"].vram_gb == 180
    assert gpus["b200"].fp8_tflops_dense == 4500


def test_normalisation_ignores_case_and_punctuation() -> None:
    assert normalise_gpu_name("H100-SXM") == normalise_gpu_name("h100 sxm") == "h100 sxm"
    assert normalise_gpu_name("  NVIDIA_A100--SXM4 (80GB) ") == "nvidia a100 sxm4 80gb"
    assert strip_vendor_words("nvidia geforce rtx 4090") == "rtx 4090"
    assert strip_vendor_words("amd instinct mi300x") == "instinct mi300x"


def test_vendor_words_are_optional_when_resolving() -> None:
    assert resolve("NVIDIA GeForce RTX 4090") == resolve("RTX 4090") == "rtx-4090"
    assert resolve("nvidia tesla t4") == resolve("T4") == "t4"
    assert resolve("NVIDIA_L40S") == "l40s"


def test_ambiguous_spellings_do_not_resolve() -> None:
    for name in ("A100", "NVIDIA A100", "H100", "NVIDIA H100", "A100 SXM", "Tesla V100", "V100"):
        assert resolve(name) is None, name
    assert resolve("not a gpu") is None
    assert resolve("") is None


def test_vram_hint_picks_the_memory_variant() -> None:
    assert resolve("A100 SXM4", vram_gb=81920 * MIB_TO_GB) == "a100-80gb-sxm"
    assert resolve("A100 SXM4", vram_gb=40960 * MIB_TO_GB) == "a100-40gb-sxm"
    assert resolve("NVIDIA A100 PCIe", vram_gb=40) == "a100-40gb-pcie"
    assert resolve("V100 SXM2", vram_gb=32) == "v100-32gb"
    # The hint never invents a form factor.
    assert resolve("NVIDIA A100", vram_gb=80) is None
    assert resolve("A100 SXM4", vram_gb=60) is None


def test_stated_form_factor_and_memory_resolve_a_name_ambiguous_alone() -> None:
    # The words of the name, less sizes and form words, pick the candidates; the facts decide.
    assert resolve("NVIDIA HGX A100", vram_gb=80) == "a100-80gb-sxm"
    assert resolve("NVIDIA A100 HGX", vram_gb=81920 * MIB_TO_GB) == "a100-80gb-sxm"
    assert resolve("NVIDIA A100 HGX", vram_gb=40) == "a100-40gb-sxm"
    assert resolve("A100 PCIe", vram_gb=80) == "a100-80gb-pcie"
    assert resolve("H100 HGX") == "h100-sxm"  # the only SXM H100 of the seed
    # Stating one fact is not enough when two models keep it; NVLink is no form factor.
    assert resolve("NVIDIA HGX A100") is None  # 40 or 80 GB
    assert resolve("V100", vram_gb=16) is None  # SXM2 or PCIe
    assert resolve("H100 NVLink") is None  # SXM, or the NVL (PCIe + bridge)
    assert resolve("NVIDIA H100", vram_gb=80) is None
    # gpu-hunt.site display names: the seed's only 32 GB V100 is SXM2, but V100s come as SXM2
    # and PCIe, so the form factor is not assumed; "NVLink" says neither (stays family-level).
    assert resolve("V100 32GB", vram_gb=32) is None
    assert resolve("H100 NVLink 80GB", vram_gb=80) is None
    assert resolve("A40 48GB", vram_gb=48) == "a40"  # one form factor: the memory is enough


def test_runpod_gpu_type_ids_resolve(snapshots: Path) -> None:
    names: set[str] = set()
    for capture in RUNPOD_GPU_TYPE_CAPTURES:
        data = json.loads((snapshots / "runpod" / capture).read_text(encoding="utf-8"))
        items = data["data"]["gpuTypes"] if isinstance(data, dict) else data
        names |= {item["id"] for item in items}
    assert len(names) > 40
    unresolved = {name for name in names if resolve(name) is None}
    assert unresolved == RUNPOD_UNSEEDED
    assert resolve("NVIDIA H100 80GB HBM3") == "h100-sxm"
    assert resolve("NVIDIA RTX 4000 SFF Ada Generation") == "rtx-4000-sff-ada"
    assert resolve("NVIDIA RTX PRO 4500 Blackwell Server Edition") == "rtx-pro-4500-se"
    assert resolve("NVIDIA RTX PRO 4500 Blackwell") == "rtx-pro-4500"  # the workstation card


def test_vast_offer_names_resolve_with_their_memory(snapshots: Path) -> None:
    path = snapshots / "vast" / "c2026-09_bundles_offers_reduced_4fields.json"
    offers = json.loads(path.read_text(encoding="utf-8"))
    resolved = {
        (offer["gpu_name"], resolve(offer["gpu_name"], vram_gb=offer["gpu_ram"] * MIB_TO_GB))
        for offer in offers
    }
    assert all(gpu_id is not None for _, gpu_id in resolved), resolved
    assert ("A100 SXM4", "a100-80gb-sxm") in resolved
    assert ("A100 PCIE", "a100-40gb-pcie") in resolved
    assert ("H100 NVL", "h100-nvl") in resolved


def test_hetzner_auction_gpu_lines_resolve(snapshots: Path) -> None:
    path = snapshots / "hetzner" / "2026-04-01T18_server-auction_live_data_sb_EUR_items.json"
    servers = json.loads(path.read_text(encoding="utf-8"))
    lines = {
        line.removeprefix("GPU - ")
        for server in servers
        for line in server["description"]
        if line.startswith("GPU - ")
    }
    assert {line: resolve(line) for line in lines} == {
        "GeForce GTX 1080": "gtx-1080",
        "Nvidia RTX 6000 Ada": "rtx-6000-ada",
    }


@pytest.mark.parametrize(
    ("spelling", "gpu_id"),
    [
        ("NVIDIA HGX H100", "h100-sxm"),  # CoreWeave / Fluidstack 2023
        ("A100 80GB NVLINK", "a100-80gb-sxm"),
        ("NVIDIA H100 PCIe NVLink 80GB", "h100-pcie"),  # Hyperstack: bridged PCIe cards
        ("AMD MI300X 192GB OAM", "mi300x"),  # Crusoe
        ("B200 SXM6 180GB", "b200"),  # DataCrunch
        ("Nvidia Tesla A100", "a100-40gb-sxm"),  # GCP billing SKU: A2 machines are SXM4 40GB
        ("Nvidia H100 80GB Mega", "h100-sxm"),  # GCP A3 Mega
        ("nvidia-tesla-v100s", "v100s-32gb-pcie"),  # OVH addon code
        ("RTX5000", "quadro-rtx-5000"),  # Paperspace 2024
        ("NVIDIA RTX PRO 6000", "rtx-pro-6000"),  # GCP G4 / Nebius: the Server Edition
        ("AMD_MI325X", "mi325x"),  # Vultr
        ("Intel Gaudi 3", "gaudi3"),
    ],
)
def test_provider_spellings_from_the_captures(spelling: str, gpu_id: str) -> None:
    assert resolve(spelling) == gpu_id


@pytest.mark.parametrize(
    ("spelling", "vram_gb", "gpu_id"),
    [
        ("NVIDIA A100 SXM4 40GB", 40, "a100-40gb-sxm"),  # AWS p4d, Azure ND A100 v4, OCI, GCP A2
        ("NVIDIA A100 SXM4 80GB", 80, "a100-80gb-sxm"),  # p4de, NDm A100 v4, A2 Ultra, Modal
        ("NVIDIA H100 SXM", 80, "h100-sxm"),  # AWS p5, OCI, Paperspace, Modal, Vultr
        ("NVIDIA H100 SXM 80GB", 80, "h100-sxm"),  # Azure ND H100 v5, GCP A3
        ("NVIDIA V100 SXM2 16GB", 16, "v100-16gb"),  # AWS p3
        ("NVIDIA V100 PCIe 16GB", 16, "v100-16gb-pcie"),  # Azure NCv3
        ("NVIDIA Tesla V100 PCIe 16GB", 16, "v100-16gb-pcie"),  # Paperspace V100
        ("NVIDIA H100 PCIe NVLink 80GB", 80, "h100-pcie"),  # Hyperstack "NVIDIA H100 NVLink"
        ("NVIDIA A100 80GB PCIe NVLink", 80, "a100-80gb-pcie"),  # Hyperstack "NVIDIA A100 NVLink"
        ("NVIDIA A100 PCIe", 40, "a100-40gb-pcie"),  # Lambda 2023 1x/2x/4x
        ("NVIDIA A100 PCIe", 80, "a100-80gb-pcie"),  # Vultr NVIDIA_A100
        ("NVIDIA A100 SXM", 80, "a100-80gb-sxm"),  # Lambda 2023 8x 80 GB
        ("NVIDIA A100 80GB PCIe", None, "a100-80gb-pcie"),  # RunPod "A100 PCIe"
        ("NVIDIA A100-SXM4-80GB", None, "a100-80gb-sxm"),  # RunPod "A100 SXM"
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", 96, "rtx-pro-6000"),  # RunPod MIG
    ],
)
def test_exact_spellings_the_scrapers_emit_resolve(
    spelling: str, vram_gb: float | None, gpu_id: str
) -> None:
    assert resolve(spelling, vram_gb) == gpu_id


def test_alias_table_is_keyed_by_normalised_spelling() -> None:
    table = alias_table()
    assert table["nvidia h100 80gb hbm3"] == "h100-sxm"
    assert all(key == normalise_gpu_name(key) for key in table)


def test_the_one_gpu_spec_holds_every_seed_column_and_the_seed_order_is_the_header():
    # warehouse.economics uses this same type: one GpuSpec for the seed and the estimates.
    assert ",".join(GPU_COLUMNS) == HEADER
    assert sorted(GPU_COLUMNS) == sorted(f.name for f in fields(GpuSpec))
    spec = load_gpus()["h100-sxm"]
    assert spec.generation == "hopper" and not spec.is_amd and spec.name
