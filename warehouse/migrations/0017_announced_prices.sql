-- 0017: announced prices (issue 21, effective-dated prices). Forward-only.
-- A source may announce a price from a date ("GPU-hour (Effective October 1, 2026)"). The
-- observation keeps it beside the current price, in the same currency, unit and basis
-- (announced_price, as quoted) with its start (announced_from, UTC), converted once by
-- warehouse/units.py like the current price, at the observation's exchange rate:
-- announced_price_per_hour (currency per instance-hour), announced_price_per_hour_usd and
-- announced_price_per_gpu_hour_usd. All four null, and announced_from null: nothing announced.
alter table observations add column announced_price decimal(18, 9);
alter table observations add column announced_from timestamptz;
alter table observations add column announced_price_per_hour decimal(18, 6);
alter table observations add column announced_price_per_hour_usd decimal(18, 6);
alter table observations add column announced_price_per_gpu_hour_usd decimal(18, 6);

-- offer_history stores an announcement as the offer's next interval, valid from its date:
-- announced = true until a scrape on or after that date sees the price in force (then false,
-- like any observed price). Its last_seen_at is its valid_from (no scrape saw it before the
-- date; the announcing scrape states it for that instant) until such a scrape advances it.
-- Every interval before this migration was observed.
alter table offer_history add column announced boolean default false;
update offer_history set announced = false where announced is null;

-- An announcement that a later scrape before its date no longer shows (or shows changed) is
-- withdrawn: its interval leaves offer_history (it was never in force) and is recorded here.
create table announcement_withdrawals (
    offer_id                        varchar not null,
    provider                        varchar not null,
    source                          varchar not null,
    announced_from                  timestamptz not null,
    price                           decimal(18, 9) not null,
    currency                        varchar not null,
    price_per_hour_usd              decimal(18, 6) not null,
    price_per_gpu_hour_usd          decimal(18, 6),
    announced_by_scrape_id          varchar,
    withdrawn_by_scrape_id          varchar,
    withdrawn_at                    timestamptz not null,
    primary key (offer_id, source, announced_from, withdrawn_at)
);
