"""The one list of providers. Adding a provider = its module, its tests and one line here."""

from __future__ import annotations

from scrapers import (
    akash,
    aws,
    azure,
    civo,
    coreweave,
    crusoe,
    datacrunch,
    deepinfra,
    digitalocean,
    e2e,
    fal,
    fluidstack,
    gcp,
    gmicloud,
    hetzner,
    hotaisle,
    hyperbolic,
    hyperstack,
    lambda_cloud,
    latitude,
    massedcompute,
    modal,
    nebius,
    oracle,
    ovh,
    paperspace,
    runpod,
    scaleway,
    shadeform,
    tensordock,
    tensorpool,
    together,
    vast,
    voltagepark,
    vultr,
)
from scrapers.base import Provider

_PROVIDERS: list[Provider] = [
    akash.PROVIDER,
    aws.PROVIDER,
    azure.PROVIDER,
    civo.PROVIDER,
    coreweave.PROVIDER,
    crusoe.PROVIDER,
    datacrunch.PROVIDER,
    deepinfra.PROVIDER,
    digitalocean.PROVIDER,
    e2e.PROVIDER,
    fal.PROVIDER,
    fluidstack.PROVIDER,
    gcp.PROVIDER,
    gmicloud.PROVIDER,
    hetzner.PROVIDER,
    hotaisle.PROVIDER,
    hyperbolic.PROVIDER,
    hyperstack.PROVIDER,
    lambda_cloud.PROVIDER,
    latitude.PROVIDER,
    massedcompute.PROVIDER,
    modal.PROVIDER,
    nebius.PROVIDER,
    oracle.PROVIDER,
    ovh.PROVIDER,
    paperspace.PROVIDER,
    runpod.PROVIDER,
    scaleway.PROVIDER,
    shadeform.PROVIDER,
    tensordock.PROVIDER,
    tensorpool.PROVIDER,
    together.PROVIDER,
    vast.PROVIDER,
    voltagepark.PROVIDER,
    vultr.PROVIDER,
]

PROVIDERS: dict[str, Provider] = {p.slug: p for p in _PROVIDERS}


def get(slug: str) -> Provider:
    try:
        return PROVIDERS[slug]
    except KeyError:
        known = ", ".join(sorted(PROVIDERS))
        raise KeyError(f"unknown provider {slug!r}; known: {known}") from None
