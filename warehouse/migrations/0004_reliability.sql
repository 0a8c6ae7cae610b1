-- 0004: quarantine of implausible price jumps.
-- Forward-only. A scrape in which any offer's USD price moved by the jump factor or more (up or
-- down, see warehouse/quality.py) is not committed: its scrape row is 'failed' with an error
-- starting 'quarantined:', and every offending offer is recorded here with old and new values so
-- an operator can tell a parser bug from a real price change.
-- basis 'offer': compared with the offer's own open interval; 'gpu_median': a new offer compared
-- with the median USD per GPU-hour of the provider's current offers of the same GPU and pricing
-- (old_* then hold that median scaled to the offer's GPU count, in USD).
create table quarantined_offers (
    scrape_id                   varchar not null,
    provider                    varchar not null,
    offer_id                    varchar not null,
    instance_type               varchar not null,
    region                      varchar not null,
    pricing                     varchar not null,
    basis                       varchar not null check (basis in ('offer', 'gpu_median')),
    old_price                   decimal(18, 9) not null,   -- as quoted, in old_currency
    old_currency                varchar not null,
    old_price_per_hour_usd      decimal(18, 6) not null,
    old_scrape_id               varchar,                    -- set the old price (basis 'offer')
    new_price                   decimal(18, 9) not null,   -- as quoted, in new_currency
    new_currency                varchar not null,
    new_price_per_hour_usd      decimal(18, 6) not null,
    ratio                       decimal(18, 6) not null,   -- new / old USD per hour
    quarantined_at              timestamptz not null,
    primary key (scrape_id, offer_id)
);
