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


# --- spot against the SKU's on-demand list prices (issue 22) ---------------------------------


def test_spot_within_10_percent_of_on_demand_in_another_region_is_suspect():
    cheap_region = offer("p", "106.00", instance="x", region="japaneast")
    dear_region = offer("p", "135.00", instance="x", region="polandcentral")
    # no on-demand price in their own regions: the cheapest elsewhere (106.00) is the reference
    near = offer("p", "96.00", instance="x", region="uksouth", pricing="spot")  # 0.906x
    discounted = offer("p", "95.00", instance="x", region="westus2", pricing="spot")  # 0.896x
    # its own region's on-demand is the reference: 0.815x of 135.00, though above 106.00
    own_region = offer("p", "110.00", instance="x", region="polandcentral", pricing="spot")
    near_own = offer("p", "125.00", instance="x", region="polandcentral", pricing="spot")
    other_sku = offer("p", "106.00", instance="y", region="uksouth", pricing="spot")
    verdicts = screen(
        [cheap_region, dear_region, near, discounted, own_region, near_own, other_sku]
    )
    assert codes(verdicts, near) == {"spot_near_on_demand"}
    assert "region japaneast" in verdicts[near.offer_id][0].detail
    assert codes(verdicts, discounted) == set()
    assert codes(verdicts, own_region) == set()
    assert codes(verdicts, near_own) == {"spot_near_on_demand"}  # 0.926x of its region's
    assert "the same region" in verdicts[near_own.offer_id][0].detail
    assert codes(verdicts, other_sku) == set()  # no on-demand price of its own SKU anywhere


def test_spot_at_its_own_regions_on_demand_is_said_once():
    on_demand = offer("p", "2.00", instance="x", region="r1")
    equal = offer("p", "2.00", instance="x", region="r1", pricing="spot")
    assert codes(screen([on_demand, equal]), equal) == {"spot_not_below_on_demand"}


def test_listed_but_not_offered_on_demand_price_is_the_spot_reference():
    listed = offer("p", "1.99", instance="x", offered=False)  # deploy_ondemand false
    spot = offer("p", "1.99", instance="x", pricing="spot")
    verdicts = screen([listed, spot])
    assert codes(verdicts, listed) == {"not_offered"}
    assert codes(verdicts, spot) == {"spot_near_on_demand"}
    assert "(listed, not offered)" in verdicts[spot.offer_id][0].detail


def test_a_placeholder_on_demand_price_is_no_spot_reference():
    # the on-demand 0.50 is a filler quoted for GPUs from 16 to 141 GB: no list price
    fillers = [
        offer("p", "0.50", gpu=g, vram=v, scrape="s1")
        for g, v in [("rtx-a4000", "16"), ("rtx-4090", "24"), ("l40s", "48")]
    ]
    placeholder = offer("p", "0.50", gpu="h200", vram="141", scrape="s1", instance="x")
    spot = offer("p", "0.48", gpu="h200", vram="141", scrape="s1", instance="x", pricing="spot")
    verdicts = screen([*fillers, placeholder, spot])
    assert codes(verdicts, placeholder) == {"repeated_price"}
    assert "spot_near_on_demand" not in codes(verdicts, spot)


def test_cloud_tiers_are_different_skus():
    community = offer("p", "0.22", instance="x", cloud_tier="community")
    secure_spot = offer("p", "0.22", instance="x", cloud_tier="secure", pricing="spot")
    assert screen([community, secure_spot]) == {}


def test_only_value_rules_are_confirmable():
    from warehouse.plausibility_rules import Reason, status

    confirmation = Reason("confirmed", "the same price was also observed on 2025-08-08")
    below = [Reason("below_market", "…")]
    assert status(below, confirmation) == "confirmed"
    assert status(below, None) == "suspect"
    assert status([], confirmation) == "ok"
    for code in ("not_offered", "spot_near_on_demand", "spot_not_below_on_demand"):
        assert status([*below, Reason(code, "…")], confirmation) == "suspect"
