-- daily_provider_prices: each provider's cheapest and dearest USD per GPU-hour per GPU model,
-- pricing model and UTC day, from the price intervals, plus the day's chain link for
-- market_index.
-- Grain: one row per (day, provider, gpu_id, pricing). Where a provider has both scraped and
-- imported intervals for that key and day, the scraped ones win (imported history can hold a
-- site's stale fallback values); `source` says which was used.
-- Observations: a scraped interval is observed on the day it opened, on the day of its
-- last_seen_at (the newest scrape that listed it unchanged, partial or full), and on every day
-- a *full* scrape of its provider ran while it was open (a full scrape either lists the offer
-- unchanged or ends the interval; a partial one, `scrapes.coverage = 'partial'`, observes only
-- what it listed, which is known for its newest sighting only). Its price is in force until
-- its kind's shelf life after last_seen_at. Imported datasets are dense series of sessions
-- whose intervals end at the last one: an imported interval is observed on every day it covers.
-- Which prices feed a day (like with like):
--   * not suspect: an interval whose opening (scrape_id, offer_id) the plausibility screen
--     judged 'suspect' (price_screens) is left out; it stays in offer_history and in the
--     per-offer views;
--   * within its shelf life: an interval's price feeds day d only if it was observed during d
--     or at most its kind's shelf life before d began (kind: the price_kind macro over pricing,
--     serverless and provider_facts.kind; days per kind: $shelf_lives, the settings
--     GPUPRICES_SHELF_LIFE_DAYS_*, warehouse/shelf_life.py).
-- Chain link: an offer observed on day d whose previous observation (any number of days
-- before: same offer, source and GPU, not suspect) had price p_prev is matched on d and
-- contributes ln(p_d / p_prev); an offer seen again unchanged contributes 0 and counts. Its
-- price on a day is that of the day's last interval observed (USD per GPU-hour:
-- offer_history.price_per_gpu_hour_usd, stored, never derived here). matched_offer_count
-- counts them and log_price_relative_sum adds their logs (each rounded to 12 decimals, so that
-- the sum is exact); market_index turns these into a Jevons index.
-- Kind: rollup
-- Published: yes
-- Depends on: offer_history, price_screens, scrapes, provider_facts, price_kind. Excludes
-- serverless tiers, unresolved GPUs and gpu_count <= 0;
-- family-level offers (gpu_id null, gpu_family set) are in views/daily_family_level_prices.sql.
-- GET /history selects these rows through views/market_history.sql, never restating the rules.
-- Incremental: warehouse.history.refresh_rollup deletes the days >= $start and runs this insert
-- with $start (midnight UTC of the first day to redo), $now (open intervals end there) and
-- $shelf_lives (a list of {price_kind, shelf_life_days}, every kind).
-- Depends also on offer_history.last_seen_at and scrapes.coverage (migration 0016); a row
-- without last_seen_at (none after that migration's backfill) falls back to the scrapes log.
insert into daily_provider_prices (
    day, provider, gpu_id, pricing, source, min_usd_per_gpu_hour, max_usd_per_gpu_hour,
    offer_count, matched_offer_count, log_price_relative_sum
)
with kind_lives as (
    -- exact microseconds, so a shelf life does not depend on the session's time zone
    select
        price_kind,
        to_microseconds(round(shelf_life_days * 86400000000)::bigint) as shelf_life
    from (select unnest($shelf_lives, recursive := true))
),

settings as (
    select
        min(shelf_life) as shortest_life,
        -- no observation older than this can keep a price in force on a day from $start on
        $start - max(shelf_life) as confirmations_from
    from kind_lives
),

suspect as (
    select scrape_id, offer_id
    from price_screens
    where price_status = 'suspect'
),

eligible as (
    -- every interval the rollup may use, with its kind's shelf life
    select
        h.offer_id,
        h.provider,
        h.gpu_id,
        h.pricing,
        h.source,
        h.valid_from,
        h.valid_to,
        h.price_per_gpu_hour_usd as usd_per_gpu_hour,
        h.last_seen_at,
        k.shelf_life
    from offer_history as h
    anti join suspect as s on h.scrape_id = s.scrape_id and h.offer_id = s.offer_id
    left join provider_facts as f on h.provider = f.provider
    inner join kind_lives as k on price_kind(h.pricing, h.serverless, f.kind) = k.price_kind
    where h.gpu_id is not null
      and h.gpu_count > 0
      and h.serverless is not true
      and h.valid_from <= $now
),

base_prices as (
    -- each offer's price at its last observation before $start: that of its newest interval
    -- opened before then (intervals of one offer and source never overlap, and each is
    -- observed on the day it opened), the base of its first link in the days redone
    select offer_id, source, gpu_id, arg_max(usd_per_gpu_hour, valid_from) as usd_per_gpu_hour
    from eligible
    where valid_from < $start
    group by offer_id, source, gpu_id
),

all_successful_scrapes as (
    -- the scrapes that confirm (observe) every open interval of their provider: full ones
    select provider, observed_at
    from scrapes
    where status = 'success'
      and observed_at is not null
      and observed_at <= $now
      and coalesce(coverage, 'full') = 'full'
),

successful_scrapes as (
    -- the confirmations that can matter, plus each provider's newest one before them (the
    -- start of a gap that may reach into the days redone)
    select provider, observed_at
    from all_successful_scrapes, settings
    where observed_at >= confirmations_from
    union all
    select provider, max(observed_at)
    from all_successful_scrapes, settings
    where observed_at < confirmations_from
    group by provider
),

scrape_days as (
    -- the days redone on which a provider was scraped, and its first scrape of the day
    select provider, timezone('UTC', observed_at)::date as day, min(observed_at) as first_at
    from successful_scrapes
    where observed_at >= $start
    group by provider, day
),

intervals as (
    select
        *,
        greatest(valid_from, $start) as clipped_from,
        least(coalesce(valid_to, $now), $now) as clipped_to
    from eligible
    where valid_to is null
       or valid_to > $start
       or (valid_to = valid_from and valid_from >= $start)
),

scrape_sequence as (
    select
        provider,
        observed_at,
        lag(observed_at) over w as previous_at,
        lead(observed_at) over w as next_at
    from successful_scrapes
    window w as (partition by provider order by observed_at)
),

newest_scrapes as (
    select provider, max(observed_at) as observed_at
    from successful_scrapes
    group by provider
),

last_confirmed as (
    -- the interval's newest observation before it ended: its last_seen_at; for a row without
    -- one, the provider's newest full scrape while it is open, else the one before the scrape
    -- that closed it. No day that begins more than the shelf life after it is in force, so
    -- those days are not even expanded
    select
        i.*,
        case
            when i.source <> 'scrape' then i.clipped_to
            when i.last_seen_at is not null then greatest(i.valid_from, least(i.last_seen_at, $now))
            when i.valid_to is null or i.valid_to > $now then greatest(i.valid_from, n.observed_at)
            else greatest(i.valid_from, c.previous_at)
        end as confirmed_until
    from intervals as i
    left join newest_scrapes as n on i.provider = n.provider
    left join scrape_sequence as c on i.provider = c.provider and i.valid_to = c.observed_at
),

provider_gaps as (
    -- stretches longer than the shortest shelf life in which a provider had no successful
    -- scrape: from the last one before (gap_from) to the next one (gap_to)
    select c.provider, c.observed_at as gap_from, c.next_at as gap_to
    from scrape_sequence as c, settings
    where c.next_at > c.observed_at + settings.shortest_life
),

expired_spans as (
    -- the days inside a scraped interval on which its price is past its shelf life: its
    -- provider was not scraped successfully for longer than that and then saw it again
    -- unchanged. Expired from the first day that began more than the shelf life after the gap
    -- began, through the last day that ended by the next scrape (rare: usually no rows at all)
    select
        i.offer_id,
        i.source,
        i.valid_from,
        list({
            'first_day': timezone('UTC', g.gap_from + i.shelf_life)::date + 1,
            'last_day': timezone('UTC', g.gap_to)::date - 1
        }) as spans
    from last_confirmed as i
    inner join provider_gaps as g
        on i.provider = g.provider
        and i.source = 'scrape'
        and g.gap_from >= i.valid_from
        and g.gap_to < i.clipped_to
        and g.gap_to > g.gap_from + i.shelf_life
    group by i.offer_id, i.source, i.valid_from
),

offer_days as (
    -- a day counts when the interval covers any part of it; a zero-length interval (an offer
    -- seen once at the end of an imported dataset) counts for its own day
    select
        i.offer_id,
        i.provider,
        i.gpu_id,
        i.pricing,
        i.source,
        i.valid_from,
        i.valid_to,
        i.last_seen_at,
        i.usd_per_gpu_hour,
        s.spans,
        unnest(generate_series(
            timezone('UTC', i.clipped_from)::date,
            least(
                timezone(
                    'UTC', greatest(i.clipped_from, i.clipped_to - interval 1 microsecond)
                )::date,
                timezone('UTC', i.confirmed_until + i.shelf_life)::date
            ),
            interval 1 day
        ))::date as day
    from last_confirmed as i
    left join expired_spans as s
        on i.offer_id = s.offer_id and i.source = s.source and i.valid_from = s.valid_from
),

observed_days as (
    -- whether the interval was observed on the day: imported intervals on every day; scraped
    -- ones on the day they opened, on the day they were last seen, and on a day a full scrape
    -- of their provider ran before they ended
    select
        d.*,
        d.source <> 'scrape'
        or d.day = timezone('UTC', d.valid_from)::date
        or d.day = timezone('UTC', d.last_seen_at)::date
        or (sd.first_at is not null and (d.valid_to is null or sd.first_at < d.valid_to))
            as observed
    from offer_days as d
    left join scrape_days as sd on d.provider = sd.provider and d.day = sd.day
    where d.spans is null
       or len(list_filter(d.spans, lambda s: d.day between s.first_day and s.last_day)) = 0
),

offer_prices as (
    -- one price per offer and day: its range, and the price of its last interval observed
    select
        day,
        offer_id,
        source,
        provider,
        gpu_id,
        pricing,
        min(usd_per_gpu_hour) as min_usd_per_gpu_hour,
        max(usd_per_gpu_hour) as max_usd_per_gpu_hour,
        arg_max(usd_per_gpu_hour, valid_from) filter (where observed) as observed_usd_per_gpu_hour
    from observed_days
    group by day, offer_id, source, provider, gpu_id, pricing
),

observations as (
    -- each observed offer-day with the price of the offer's previous observation
    select
        o.day,
        o.offer_id,
        o.source,
        o.gpu_id,
        o.pricing,
        o.observed_usd_per_gpu_hour as usd_per_gpu_hour,
        case
            when row_number() over w = 1 then b.usd_per_gpu_hour
            else lag(o.observed_usd_per_gpu_hour) over w
        end as previous_usd_per_gpu_hour
    from offer_prices as o
    left join base_prices as b
        on o.offer_id = b.offer_id and o.source = b.source and o.gpu_id = b.gpu_id
    where o.observed_usd_per_gpu_hour is not null
    window w as (partition by o.offer_id, o.source, o.gpu_id order by o.day, o.pricing)
),

relatives as (
    select
        t.*,
        case
            when r.usd_per_gpu_hour > 0 and r.previous_usd_per_gpu_hour > 0
                then ln(r.usd_per_gpu_hour / r.previous_usd_per_gpu_hour)
        end::decimal(18, 12) as log_price_relative
    from offer_prices as t
    left join observations as r
        on t.day = r.day
        and t.offer_id = r.offer_id
        and t.source = r.source
        and t.gpu_id = r.gpu_id
        and t.pricing = r.pricing
),

per_source as (
    select
        day,
        provider,
        gpu_id,
        pricing,
        source,
        min(min_usd_per_gpu_hour) as min_usd_per_gpu_hour,
        max(max_usd_per_gpu_hour) as max_usd_per_gpu_hour,
        count(*) as offer_count,
        count(log_price_relative) as matched_offer_count,
        coalesce(sum(log_price_relative), 0) as log_price_relative_sum
    from relatives
    group by day, provider, gpu_id, pricing, source
)

select
    day,
    provider,
    gpu_id,
    pricing,
    source,
    round(min_usd_per_gpu_hour, 6)::decimal(18, 6),
    round(max_usd_per_gpu_hour, 6)::decimal(18, 6),
    offer_count::integer,
    matched_offer_count::integer,
    log_price_relative_sum::decimal(18, 12)
from per_source
qualify row_number() over (
    partition by day, provider, gpu_id, pricing order by (source = 'scrape') desc, source
) = 1
