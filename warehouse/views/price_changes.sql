-- price_changes: every change of an offer's price, with the old and new price, how long the
-- old one had gone unobserved, and the change in percent on comparable prices.
-- Grain: one row per (offer_id, source, changed_at): an interval of an offer and the offer's
-- previous interval (same offer_id and source), whether the new one began the instant the old
-- one ended or after a gap (the offer not listed, or no capture for a while), when the price,
-- currency, unit or basis differs. An offer that returns at the same price is not a change.
-- changed_at is when the new price was first observed; the change happened after
-- old_last_seen_at (the newest observation of the old price) and at or before changed_at:
-- gap_days is that span in days (~0.04 for hourly scrapes).
-- pct_change, on comparable prices (pct_change_basis says which):
--   'price'              the provider's own price, when currency, unit, basis and GPU count
--                        are the same (a EUR cut stays a cut whatever the exchange rate did);
--   'price_per_gpu_hour' the price per GPU-hour in the offer's own currency, when the unit
--                        (hour, month, ...), the basis (per GPU or per instance) or the GPU
--                        count changed (Lambda's 8x H100 quoted per instance-hour, then per
--                        GPU-hour);
--   'usd_per_gpu_hour'   USD per GPU-hour, when the currency changed or either interval's unit
--                        is unknown (written before migration 0016, observations since pruned).
-- pct_change_usd is always the change of USD per GPU-hour (exchange-rate moves included).
-- announced: the new interval is a price the source announced from changed_at (its effective
-- date, offer_history.announced) that no scrape on or after that date has seen in force yet.
-- Such a change may be dated after the snapshot (a price still to come): the view lists it, as
-- history stores it; GET /changes leaves out changes after the snapshot instant. Its gap_days
-- runs from the old price's newest observation to the effective date, as for any change.
-- old_price_status / new_price_status: the plausibility screen's verdict on each side
-- (offer_intervals.price_status: ok, suspect, confirmed; null when unscreened). A change from
-- or to a suspect price (a placeholder for a tier the provider does not offer, a price out of
-- line with its siblings) is not a price a buyer could have paid: GET /changes leaves such
-- changes out unless include_suspect=true; the view keeps them, with suspect = true (false
-- when neither side is suspect, unscreened sides included): `where not suspect`.
-- Kind: view
-- Depends on: offer_intervals.
-- Published: yes
create or replace view price_changes as
with paired as (
    select
        *,
        lag(valid_from) over w as old_valid_from,
        lag(last_seen_at) over w as old_last_seen_at,
        lag(price) over w as old_price,
        lag(currency) over w as old_currency,
        lag(price_unit) over w as old_price_unit,
        lag(price_per) over w as old_price_per,
        lag(gpu_count) over w as old_gpu_count,
        lag(price_per_hour_usd) over w as old_price_per_hour_usd,
        lag(price_per_gpu_hour) over w as old_price_per_gpu_hour,
        lag(price_per_gpu_hour_usd) over w as old_price_per_gpu_hour_usd,
        lag(price_status) over w as old_price_status
    from offer_intervals
    window w as (partition by offer_id, source order by valid_from)
),

changes as (
    select
        *,
        case
            when old_currency <> currency
                 or old_price_per_gpu_hour is null or price_per_gpu_hour is null
                then 'usd_per_gpu_hour'
            when old_price_unit <> price_unit or old_price_per <> price_per
                 or old_gpu_count <> gpu_count
                then 'price_per_gpu_hour'
            else 'price'
        end as pct_change_basis
    from paired
    where old_valid_from is not null
      and (old_price <> price or old_currency <> currency
           or old_price_unit <> price_unit or old_price_per <> price_per)
)

select
    valid_from as changed_at,
    offer_id,
    source,
    provider,
    instance_type,
    region,
    cloud_tier,
    pricing,
    gpu_id,
    gpu_count,
    old_price,
    price as new_price,
    old_currency,
    currency,
    old_price_unit,
    price_unit as new_price_unit,
    old_price_per,
    price_per as new_price_per,
    old_price_per_hour_usd,
    price_per_hour_usd as new_price_per_hour_usd,
    old_price_per_gpu_hour,
    price_per_gpu_hour as new_price_per_gpu_hour,
    old_price_per_gpu_hour_usd,
    price_per_gpu_hour_usd as new_price_per_gpu_hour_usd,
    round(100 * (case pct_change_basis
        when 'price' then price / old_price
        when 'price_per_gpu_hour' then price_per_gpu_hour / old_price_per_gpu_hour
        else price_per_gpu_hour_usd / old_price_per_gpu_hour_usd
    end - 1), 2) as pct_change,
    round(100 * (price_per_gpu_hour_usd / old_price_per_gpu_hour_usd - 1), 2) as pct_change_usd,
    pct_change_basis,
    old_valid_from,
    old_last_seen_at,
    round(epoch(valid_from - old_last_seen_at) / 86400, 3) as gap_days,
    coalesce(announced, false) as announced,
    old_price_status,
    price_status as new_price_status,
    coalesce(old_price_status = 'suspect' or price_status = 'suspect', false) as suspect
from changes
