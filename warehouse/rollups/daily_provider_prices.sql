-- daily_provider_prices: each provider's cheapest and dearest USD per GPU-hour per GPU model,
-- pricing model and UTC day, from the price intervals, plus the day's chain link for
-- market_index.
-- Grain: one row per (day, provider, gpu_id, pricing). Where a provider has both scraped and
-- imported intervals for that key and day, the scraped ones win (imported history can hold a
-- site's stale fallback values); `source` says which was used.
-- Which prices feed a day (like with like):
--   * not suspect: an interval whose opening (scrape_id, offer_id) the plausibility screen
--     judged 'suspect' (price_screens) is left out; it stays in offer_history and in the
--     per-offer views;
--   * not stale: an interval's price feeds day d only if it was confirmed during d or at most
--     $stale_after_days (GPUPRICES_STALE_AFTER_DAYS) before d began. A scraped price was
--     last confirmed at its interval's last_seen_at (the newest scrape that listed it
--     unchanged; a partial scrape that does not list it confirms nothing); every full scrape
--     in between listed it too (it would have ended the interval otherwise). Imported
--     datasets are dense series of sessions whose intervals end at the last one: they count
--     as confirmed while open.
-- Chain link: an offer is matched on day d when it fed both d and d-1 (same offer, source
-- and GPU) at positive prices; its price on a day is that of the day's last interval feeding
-- it (USD per GPU-hour: offer_history.price_per_gpu_hour_usd, stored, never derived here).
-- matched_offer_count counts them and log_price_relative_sum adds
-- ln(price_d / price_d-1) over them (each rounded to 12 decimals, so that the sum is exact);
-- market_index turns these into a Jevons index.
-- Depends on: offer_history, price_screens, scrapes. Excludes serverless tiers, unresolved
-- GPUs and gpu_count <= 0; family-level offers (gpu_id null, gpu_family set) are in
-- views/daily_family_level_prices.sql under the same rules. GET /history selects these rows
-- through views/market_history.sql, never restating the rules.
-- Incremental: warehouse.history.refresh_rollup deletes the days >= $start and runs this insert
-- with $start (midnight UTC of the first day to redo; the day before is read as the base of
-- its links), $now (open intervals end there) and $stale_after_days (a number of days).
insert into daily_provider_prices (
    day, provider, gpu_id, pricing, source, min_usd_per_gpu_hour, max_usd_per_gpu_hour,
    offer_count, matched_offer_count, log_price_relative_sum
)
with settings as (
    select
        -- exact microseconds, so the threshold does not depend on the session's time zone
        to_microseconds(round($stale_after_days * 86400000000)::bigint) as stale_after,
        -- no confirmation older than this can keep a price fresh on a day from $start - 1 on
        $start - interval 1 day - stale_after as confirmations_from
),

suspect as (
    select scrape_id, offer_id
    from price_screens
    where price_status = 'suspect'
),

all_successful_scrapes as (
    select provider, observed_at
    from scrapes
    where status = 'success'
      and observed_at is not null
      and observed_at <= $now
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

intervals as (
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
        greatest(h.valid_from, $start - interval 1 day) as clipped_from,
        least(coalesce(h.valid_to, $now), $now) as clipped_to
    from offer_history as h
    anti join suspect as s on h.scrape_id = s.scrape_id and h.offer_id = s.offer_id
    where h.gpu_id is not null
      and h.gpu_count > 0
      and h.serverless is not true
      and h.valid_from <= $now
      and (
          h.valid_to is null
          or h.valid_to > $start - interval 1 day
          or (h.valid_to = h.valid_from and h.valid_from >= $start - interval 1 day)
      )
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
    -- the interval's newest confirmation before it ended: its last_seen_at (migration 0014;
    -- a partial scrape that did not list the offer does not confirm it), else, for a row
    -- without one, the provider's newest successful scrape while it is open, or the one
    -- before the scrape that closed it. No day that begins more than the threshold after it
    -- is fresh, so those days are not even expanded
    select
        i.*,
        case
            when i.source <> 'scrape' then i.clipped_to
            when i.last_seen_at is not null then least(i.last_seen_at, $now)
            when i.valid_to is null or i.valid_to > $now then greatest(i.valid_from, n.observed_at)
            else greatest(i.valid_from, c.previous_at)
        end as confirmed_until
    from intervals as i
    left join newest_scrapes as n on i.provider = n.provider
    left join scrape_sequence as c on i.provider = c.provider and i.valid_to = c.observed_at
),

provider_gaps as (
    -- stretches longer than the threshold in which a provider had no successful scrape: from
    -- the last one before (gap_from) to the next one (gap_to)
    select c.provider, c.observed_at as gap_from, c.next_at as gap_to, settings.stale_after
    from scrape_sequence as c, settings
    where c.next_at > c.observed_at + settings.stale_after
),

stale_spans as (
    -- the days inside a scraped interval on which its price is stale: its provider was not
    -- scraped successfully for longer than the threshold and then saw it again unchanged. Stale
    -- from the first day that began more than the threshold after the gap began, through the
    -- last day that ended by the next scrape (rare: usually no rows at all)
    select
        i.offer_id,
        i.source,
        i.valid_from,
        list({
            'first_day': timezone('UTC', g.gap_from + g.stale_after)::date + 1,
            'last_day': timezone('UTC', g.gap_to)::date - 1
        }) as spans
    from last_confirmed as i
    inner join provider_gaps as g
        on i.provider = g.provider
        and i.source = 'scrape'
        and g.gap_from >= i.valid_from
        and g.gap_to < i.clipped_to
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
        i.usd_per_gpu_hour,
        s.spans,
        unnest(generate_series(
            timezone('UTC', i.clipped_from)::date,
            least(
                timezone(
                    'UTC', greatest(i.clipped_from, i.clipped_to - interval 1 microsecond)
                )::date,
                timezone('UTC', i.confirmed_until + settings.stale_after)::date
            ),
            interval 1 day
        ))::date as day
    from last_confirmed as i
    cross join settings
    left join stale_spans as s
        on i.offer_id = s.offer_id and i.source = s.source and i.valid_from = s.valid_from
),

offer_prices as (
    -- one price per offer and day: its range, and the price of its last interval that day
    select
        day,
        offer_id,
        source,
        provider,
        gpu_id,
        pricing,
        min(usd_per_gpu_hour) as min_usd_per_gpu_hour,
        max(usd_per_gpu_hour) as max_usd_per_gpu_hour,
        arg_max(usd_per_gpu_hour, valid_from) as closing_usd_per_gpu_hour
    from offer_days
    where spans is null
       or len(list_filter(spans, lambda s: day between s.first_day and s.last_day)) = 0
    group by day, offer_id, source, provider, gpu_id, pricing
),

relatives as (
    select
        t.*,
        case
            when t.closing_usd_per_gpu_hour > 0 and y.closing_usd_per_gpu_hour > 0
                then ln(t.closing_usd_per_gpu_hour / y.closing_usd_per_gpu_hour)
        end::decimal(18, 12) as log_price_relative
    from offer_prices as t
    left join offer_prices as y
        on t.offer_id = y.offer_id
        and t.source = y.source
        and t.gpu_id = y.gpu_id
        and t.day - 1 = y.day
    where t.day >= timezone('UTC', $start)::date
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
    group by all
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
