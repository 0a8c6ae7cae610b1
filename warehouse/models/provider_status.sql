-- provider_status: freshness and health per provider.
-- Grain: one row per provider that has ever been scraped.
-- Depends on: scrapes, scrape_exclusions, scrape_skipped_parts, current_offers; variable
-- stale_before.
-- excluded_rows: what the parser of the scrape each provider is served from left out, per
-- reason (JSON object). skipped_parts: the parts of that scrape's fetch that failed alone
-- (a region, a page), part -> error (JSON object); last_status is then 'partial' (a success
-- that skipped parts), and the offers it did not list are served from the last scrape that
-- listed them (kept_offer_count; current_offers).
-- expired_offer_count: current offers whose price is past the shelf life of its kind
-- (current_offers.expired), which answers leave out unless asked (include_expired=true);
-- expired_by_kind: those per price_kind (JSON object).
create or replace table provider_status as
with per_provider as (
    select
        provider,
        max(finished_at) filter (where status = 'success') as last_success_at,
        max(observed_at) filter (where status = 'success') as data_observed_at,
        max(finished_at) filter (where status = 'failed') as last_failure_at,
        arg_max(error, finished_at) filter (where status = 'failed') as last_error,
        -- the last live attempt's status when there was one (a recorded fallback loaded after a
        -- failed live fetch does not make the provider look healthy), else the last replay's
        coalesce(
            arg_max(outcome, started_at) filter (where mode = 'live'),
            arg_max(outcome, started_at)
        ) as last_status,
        max(started_at) as last_attempt_at
    from (
        select
            *,
            case
                when status = 'success' and scrape_id in (
                    select scrape_id from scrape_skipped_parts
                ) then 'partial'
                else status
            end as outcome
        from scrapes
    )
    where status <> 'running'
    group by provider
),

-- the scrape each provider is served from (current_offers' rule: its newest success; offers a
-- scrape with skipped parts did not list are served from older ones, whose exclusions and
-- skipped parts are not this scrape's)
served_scrape as (
    select provider, arg_max(scrape_id, observed_at) as scrape_id
    from current_offers
    where price_source = 'scrape'
    group by provider
),

exclusions as (
    select
        n.provider,
        sum(e.row_count)::integer as excluded_row_count,
        to_json(map(list(e.reason order by e.reason), list(e.row_count order by e.reason)))::varchar
            as excluded_rows
    from served_scrape as n
    inner join scrape_exclusions as e on n.scrape_id = e.scrape_id
    group by n.provider
),

skipped as (
    select
        n.provider,
        count(*)::integer as skipped_part_count,
        to_json(map(list(k.part order by k.part), list(k.error order by k.part)))::varchar
            as skipped_parts
    from served_scrape as n
    inner join scrape_skipped_parts as k on n.scrape_id = k.scrape_id
    group by n.provider
),

expired_kinds as (
    select
        provider,
        to_json(map(list(price_kind order by price_kind), list(n order by price_kind)))::varchar
            as expired_by_kind
    from (
        select provider, price_kind, count(*)::integer as n
        from current_offers
        where expired
        group by provider, price_kind
    )
    group by provider
),

offer_counts as (
    select
        provider,
        count(*) as current_offer_count,
        count(*) filter (where price_status = 'suspect') as suspect_offer_count,
        count(*) filter (where stale) as stale_offer_count,
        count(*) filter (where expired) as expired_offer_count,
        count(*) filter (where vram_report_mismatch) as vram_mismatch_count,
        -- offers served from an older scrape than the newest (which skipped parts)
        count(*) filter (where o.scrape_id <> s.scrape_id) as kept_offer_count,
        max(observed_at) as newest_price_observed_at,
        min(age_days) as newest_price_age_days,
        -- live / recorded / curated; 'mixed' cannot happen (one scrape per provider is current)
        any_value(data_origin) as data_origin
    from current_offers as o
    left join served_scrape as s using (provider)
    group by provider
)

select
    p.*,
    coalesce(c.current_offer_count, 0) as current_offer_count,
    coalesce(c.suspect_offer_count, 0) as suspect_offer_count,
    coalesce(c.stale_offer_count, 0) as stale_offer_count,
    coalesce(c.expired_offer_count, 0) as expired_offer_count,
    coalesce(e.expired_by_kind, '{}') as expired_by_kind,
    coalesce(c.vram_mismatch_count, 0) as vram_mismatch_count,
    coalesce(c.kept_offer_count, 0) as kept_offer_count,
    c.newest_price_observed_at,
    c.newest_price_age_days,
    c.data_origin,
    coalesce(x.excluded_row_count, 0) as excluded_row_count,
    coalesce(x.excluded_rows, '{}') as excluded_rows,
    coalesce(k.skipped_part_count, 0) as skipped_part_count,
    coalesce(k.skipped_parts, '{}') as skipped_parts,
    -- stale: no successful scrape finished since the freshness cut-off (variable set by
    -- warehouse.derive.rebuild, GPUPRICES_STALE_AFTER_HOURS); never succeeded counts as stale
    coalesce(p.last_success_at < getvariable('stale_before'), true) as stale
from per_provider as p
left join offer_counts as c using (provider)
left join exclusions as x using (provider)
left join skipped as k using (provider)
left join expired_kinds as e using (provider)
order by provider;
