-- 0021: a suspect price that another capture confirms (issue 22 item 5). Forward-only.
-- price_screens.price_status gains 'confirmed': the screen's value rules (below_market,
-- above_market, repeated_price: the price looks wrong next to the market or its siblings)
-- found the price suspect, but the same offer at the same quoted price (amount, currency,
-- unit, basis) was also observed by another successful scrape of the provider on a different
-- UTC date (offer_history: an observed interval of that price first or last seen on another
-- day), or read off a different source document (another source_url) of the provider. A
-- confirmed price is served like an ok one; its reasons keep what the screen found and add
-- the confirmation. Never confirmed: a price the provider flags as not offered (not_offered)
-- and a price judged against a sibling of the same instance (spot_not_below_on_demand,
-- spot_near_on_demand, community_above_secure): another capture repeats such a relation, it
-- does not refute it. Rules: warehouse/plausibility_rules.py, docs/history.md.
-- DuckDB cannot alter a check constraint, so the table is rebuilt with the same rows.
create table price_screens_v18 (
    scrape_id       varchar not null,
    offer_id        varchar not null,
    provider        varchar not null,
    price_status    varchar not null
        check (price_status in ('ok', 'suspect', 'confirmed')),
    reasons         varchar not null,
    screened_at     timestamptz not null,
    primary key (scrape_id, offer_id)
);
insert into price_screens_v18
select scrape_id, offer_id, provider, price_status, reasons, screened_at from price_screens;
drop table price_screens;
alter table price_screens_v18 rename to price_screens;
