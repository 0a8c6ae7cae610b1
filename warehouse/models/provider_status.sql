-- provider_status: freshness and health per provider.
-- Grain: one row per provider that has ever been scraped.
-- Kind: model
-- Depends on: scrapes, scrape_exclusions, scrape_skipped_parts, current_offers; variables
-- as_of and stale_before.
-- Published: yes
-- Scrape times: last_success_at is the newest *live* scrape that succeeded; loading recorded
-- data (a replayed capture, a fallback replay, the recorded offers shipped with gpuprices: mode
-- 'replay') is last_recorded_load_at, never a success of the provider's live site.
-- The data's age (issue 22): shelf_life_days is the longest shelf life among the kinds of the
-- provider's current prices (current_offers.shelf_life_days), fresh_until the last instant one
-- of them is still in force (max expires_at = its newest price's observed_at + that shelf life
-- when, as usual, one scrape serves it all). stale: none is in force any more at as_of (every
-- current offer expired; no current offer counts as stale), whenever it was last scraped.
-- live: its prices come from a live scrape and it is not stale. overdue: no live scrape
-- succeeded since stale_before (GPUPRICES_STALE_AFTER_HOURS before as_of): the pipeline is not
-- refreshing it.
-- excluded_rows: what the parser of the scrape each provider is served from left out, per
-- reason (JSON object), split into unknown_rows (rows the parser does not know or could not
-- read: reasons 'unknown_<kind> <name>' and 'unparsed_<cell> ...', the prefixes of
-- scrapers.base.unrecognised_rows) and benign_rows (known kinds of non-offer: Windows prices,
-- CPU-only servers, 'contact sales'). skipped_parts: the parts of that scrape's fetch that
-- failed alone (a region, a page), part -> error (JSON object); last_status is then 'partial'
-- (a success that skipped parts), and the offers it did not list are served from the last
-- scrape that listed them (kept_offer_count; current_offers).
-- expired_offer_count: current offers whose price is past the shelf life of its kind
-- (current_offers.expired), which answers leave out unless asked (include_expired=true);
-- expired_by_kind: those per price_kind (JSON object).
create or replace table provider_status as
with per_provider as (
    select
        provider,
        max(finished_at) filter (where status = 'success' and mode = 'live') as last_success_at,
        max(finished_at) filter (where status = 'success' and mode <> 'live')
            as last_recorded_load_at,
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
            as excluded_rows,
        coalesce(sum(e.row_count) filter (where e.unknown), 0)::integer as unknown_row_count,
        to_json(map(
            coalesce(list(e.reason order by e.reason) filter (where e.unknown), []),
            coalesce(list(e.row_count order by e.reason) filter (where e.unknown), [])
        ))::varchar as unknown_rows,
        coalesce(sum(e.row_count) filter (where not e.unknown), 0)::integer as benign_row_count,
        to_json(map(
            coalesce(list(e.reason order by e.reason) filter (where not e.unknown), []),
            coalesce(list(e.row_count order by e.reason) filter (where not e.unknown), [])
        ))::varchar as benign_rows
    from served_scrape as n
    inner join (
        select
            *,
            -- the prefixes of scrapers.base.unrecognised_rows (UNKNOWN_ROW_PREFIX,
            -- UNPARSED_ROW_PREFIX); tests/warehouse/test_provider_status.py keeps them equal
            starts_with(reason, 'unknown') or starts_with(reason, 'unparsed') as unknown
        from scrape_exclusions
    ) as e on n.scrape_id = e.scrape_id
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
        max(shelf_life_days) as shelf_life_days,
        max(expires_at) as fresh_until,
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
    coalesce(x.benign_row_count, 0) as benign_row_count,
    coalesce(x.benign_rows, '{}') as benign_rows,
    coalesce(x.unknown_row_count, 0) as unknown_row_count,
    coalesce(x.unknown_rows, '{}') as unknown_rows,
    coalesce(k.skipped_part_count, 0) as skipped_part_count,
    coalesce(k.skipped_parts, '{}') as skipped_parts,
    c.shelf_life_days,
    c.fresh_until,
    -- stale: no current price is still in force (see the header); live: a live scrape's prices,
    -- not stale; overdue: no live success since the cut-off (variables set by
    -- warehouse.derive.rebuild; never live counts as overdue)
    coalesce(c.fresh_until <= getvariable('as_of')::timestamptz, true) as stale,
    coalesce(c.data_origin = 'live' and c.fresh_until > getvariable('as_of')::timestamptz, false)
        as live,
    coalesce(p.last_success_at < getvariable('stale_before'), true) as overdue
from per_provider as p
left join offer_counts as c using (provider)
left join exclusions as x using (provider)
left join skipped as k using (provider)
left join expired_kinds as e using (provider)
order by provider;
