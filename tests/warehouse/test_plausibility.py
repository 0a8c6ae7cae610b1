"""The plausibility screen's rules on constructed markets (warehouse/plausibility.py)."""

from __future__ import annotations

from decimal import Decimal
from itertools import count

from warehouse.plausibility import MarketOffer, screen

_ids = count()


def offer(
    provider: str,
    usd_per_gpu_hour: str,
    *,
    gpu: str | None = "h100-sxm",
    vram: str | None = "80",
    pricing: str = "on_demand",
    instance: str | None = None,
    region: str = "global",
    cloud_tier: str | None = None,
    gpus: str = "1",
    scrape: str | None = None,
    offered: bool | None = None,
    earlier_offered: bool | None = None,
    price: str | None = None,
    serverless: bool = False,
) -> MarketOffer:
    n = next(_ids)
    hourly = Decimal(usd_per_gpu_hour) * Decimal(gpus)
    return MarketOffer(
        offer_id=f"o{n}",
        scrape_id=scrape or f"s-{provider}",
        provider=provider,
        instance_type=instance or f"i{n}",
        region=region,
        cloud_tier=cloud_tier,
        pricing=pricing,
        gpu_id=gpu,
        gpu_name_provider=gpu or "Mystery GPU",
        gpu_count=Decimal(gpus),
        vram_gb_per_gpu=None if vram is None else Decimal(vram),
        price=Decimal(price or usd_per_gpu_hour),
        currency="USD",
        price_unit="hour",
        price_per="gpu",
        price_per_hour_usd=hourly,
        price_per_gpu_hour_usd=Decimal(usd_per_gpu_hour),
        offered=offered,
        earlier_offered=earlier_offered,
        serverless=serverless,
    )


def codes(verdicts, o: MarketOffer) -> set[str]:
    return {r.code for r in verdicts.get(o.offer_id, [])}


def test_price_below_a_quarter_of_the_cheap_end_of_other_providers_is_suspect():
    market = [offer("a", "2.00"), offer("b", "2.50"), offer("c", "3.00")]
    cheap, bargain = offer("d", "0.40"), offer("e", "0.80")
    verdicts = screen([*market, cheap, bargain])
    # d: lower quartile of e, a, b, c (0.8, 2.0, 2.5, 3.0) = 1.7; 0.40 < 1.7 / 4
    assert codes(verdicts, cheap) == {"below_market"}
    # e: lower quartile of d, a, b, c (0.4, 2.0, 2.5, 3.0) = 1.6; 0.80 >= 1.6 / 4: a bargain
    assert codes(verdicts, bargain) == set()
    assert not any(codes(verdicts, o) for o in market)


def test_a_marketplace_with_many_cheap_listings_counts_once_in_the_band():
    listings = [offer("market", "0.90") for _ in range(50)]
    others = [offer("a", "2.00"), offer("b", "2.20"), offer("c", "2.40")]
    verdicts = screen([*listings, *others])
    # the 50 listings do not drag the reference down for a, b, c; nor are they suspect
    assert verdicts == {}


def test_no_band_without_three_other_providers():
    verdicts = screen([offer("a", "2.00"), offer("b", "2.00"), offer("c", "0.10")])
    assert verdicts == {}


def test_band_compares_like_pricing_kinds_and_gpus():
    market = [offer(p, "2.50") for p in "abc"]
    spot = offer("d", "0.50", pricing="spot")  # no spot market to compare with
    other_gpu = offer("e", "0.50", gpu="rtx-4090", vram="24")
    assert screen([*market, spot, other_gpu]) == {}


def test_absurdly_high_price_is_suspect_but_a_hyperscaler_premium_is_not():
    market = [offer(p, "2.50") for p in "abc"]
    premium, absurd = offer("aws", "12.00"), offer("typo", "250")
    verdicts = screen([*market, premium, absurd])
    assert codes(verdicts, premium) == set()
    assert codes(verdicts, absurd) == {"above_market"}


def test_one_price_for_gpus_from_16_to_141_gb_in_one_scrape_is_a_placeholder():
    gpus = [("rtx-a4000", "16"), ("rtx-4090", "24"), ("l40s", "48"), ("h200", "141")]
    group = [offer("p", "0.50", gpu=g, vram=v, scrape="s1") for g, v in gpus]
    verdicts = screen(group)
    assert all(codes(verdicts, o) == {"repeated_price"} for o in group)


def test_one_price_for_similar_gpus_is_not_a_placeholder():
    gpus = [("rtx-3090", "24"), ("rtx-4090", "24"), ("rtx-a5000", "24"), ("l4", "24")]
    assert screen([offer("p", "0.44", gpu=g, vram=v, scrape="s1") for g, v in gpus]) == {}


def test_one_price_across_three_gpus_or_across_scrapes_is_not_a_placeholder():
    three = [("rtx-a4000", "16"), ("l40s", "48"), ("h200", "141")]
    assert screen([offer("p", "0.50", gpu=g, vram=v, scrape="s1") for g, v in three]) == {}
    four = [("rtx-a4000", "16"), ("rtx-4090", "24"), ("l40s", "48"), ("h200", "141")]
    apart = [offer(f"p{i}", "0.50", gpu=g, vram=v) for i, (g, v) in enumerate(four)]
    assert screen(apart) == {}


def test_spot_at_or_above_on_demand_of_the_same_instance_is_suspect():
    on_demand = offer("p", "2.00", instance="x")
    equal = offer("p", "2.00", instance="x", pricing="spot")
    cheaper = offer("p", "1.20", instance="y", pricing="spot")
    base_y = offer("p", "2.00", instance="y")
    verdicts = screen([on_demand, equal, cheaper, base_y])
    assert codes(verdicts, equal) == {"spot_not_below_on_demand"}
    assert codes(verdicts, cheaper) == set() and codes(verdicts, on_demand) == set()


def test_community_price_above_secure_is_suspect():
    secure = offer("p", "1.00", instance="x", cloud_tier="secure")
    community = offer("p", "1.20", instance="x", cloud_tier="community")
    assert codes(screen([secure, community]), community) == {"community_above_secure"}


def test_a_suspect_sibling_is_no_reference():
    # secure 0.50 is flagged by the provider; the community 1.64 above it is the real price
    secure = offer("p", "0.50", instance="x", cloud_tier="secure", offered=False)
    community = offer("p", "1.64", instance="x", cloud_tier="community", offered=True)
    verdicts = screen([secure, community])
    assert codes(verdicts, secure) == {"not_offered"}
    assert codes(verdicts, community) == set()


def test_provider_flag_and_earlier_flag_of_the_same_price_mark_not_offered():
    flagged = offer("p", "0.50", offered=False)
    unflagged_but_flagged_before = offer("p", "0.50", earlier_offered=False)
    offered_before = offer("p", "0.50", earlier_offered=True)
    verdicts = screen([flagged, unflagged_but_flagged_before, offered_before])
    assert codes(verdicts, flagged) == {"not_offered"}
    assert codes(verdicts, unflagged_but_flagged_before) == {"not_offered"}
    assert codes(verdicts, offered_before) == set()


def test_unknown_gpus_are_not_banded():
    market = [offer(p, "2.50", gpu=None, vram=None) for p in "abc"]
    assert screen([*market, offer("d", "0.10", gpu=None, vram=None)]) == {}


def test_serverless_tiers_do_not_set_the_band_for_instances():
    tiers = [offer(p, "5.00", serverless=True) for p in ("s1", "s2", "s3")]
    instances = [offer(p, "2.00") for p in "abc"]
    assert screen([*tiers, *instances, offer("d", "1.10")]) == {}


def test_a_marketplace_below_hyperscalers_but_near_the_cheap_clouds_is_not_suspect():
    # A100 40GB: hyperscalers list it at 3-4 USD/GPU-h, a neocloud at 1.29; a marketplace at
    # 0.67 is under a quarter of the overall median (3.3) but not of the cheap end
    clouds = [offer(p, v) for p, v in [("aws", "4.10"), ("gcp", "3.67"), ("azure", "3.40"),
                                       ("oracle", "3.05"), ("lambda", "1.29")]]  # fmt: skip
    bargain, placeholder = offer("market", "0.67"), offer("odd", "0.12")
    verdicts = screen([*clouds, bargain, placeholder])
    assert codes(verdicts, bargain) == set()
    assert codes(verdicts, placeholder) == {"below_market"}
