-- price_changes: every change of an offer's price, with the old and new price.
-- Grain: one row per (offer_id, source, changed_at): an interval that directly follows another
-- interval of the same offer (the old one closed at the instant the new one opened) with a
-- different price or currency. An offer that disappears and comes back later is not a change.
-- pct_change compares the provider's own price when the currency is unchanged, else USD.
-- Depends on: offer_history.
create or replace view price_changes as
select
    n.valid_from as changed_at,
    n.offer_id,
    n.source,
    n.provider,
    n.instance_type,
    n.region,
    n.pricing,
    n.gpu_id,
    n.gpu_count,
    o.price as old_price,
    n.price as new_price,
    n.currency,
    o.price_per_hour_usd as old_price_per_hour_usd,
    n.price_per_hour_usd as new_price_per_hour_usd,
    round(100 * (case
        when o.currency = n.currency then n.price / o.price
        else n.price_per_hour_usd / o.price_per_hour_usd
    end - 1), 2) as pct_change
from offer_history as n
inner join offer_history as o
    on n.offer_id = o.offer_id and n.source = o.source and n.valid_from = o.valid_to
where o.price <> n.price or o.currency <> n.currency
