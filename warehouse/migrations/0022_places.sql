-- 0022: places (issue 22, item 6). Forward-only.
-- An offer's region is the provider's own region id, never a product tier: a provider that
-- sells one GPU in several tiers (a secure and a community cloud) states the tier in
-- cloud_tier, which is part of the offer's id (warehouse.records.offer_id). Offers stored
-- with the tier as their region are moved to their new place and id by
-- warehouse.identity.merge_offer_identities (the scraper's Provider.place_rule), their history
-- merged into one series (offer_id_merges records each move). country: the ISO 3166-1 alpha-2
-- code the source row itself names (a marketplace host's location), null when it names none.
alter table observations add column cloud_tier varchar;
alter table observations add column country varchar;
alter table offer_history add column cloud_tier varchar;

-- Seeds (replaced from warehouse/seeds/regions.csv and countries.csv on every run,
-- warehouse/places.py; documented in warehouse/seeds/PLACES.md).
-- Each provider's region ids -> where they are. region may end in '*': a prefix of ids
-- (a data-centre family such as 'FSN1-DC*'); an exact id wins over a prefix. country null:
-- an area of several countries (continent set) or of several continents (both null).
create table regions (
    provider        varchar not null,
    region          varchar not null,
    country         varchar,            -- ISO 3166-1 alpha-2
    continent       varchar,
    city            varchar,
    source_url      varchar not null,
    primary key (provider, region)
);

-- ISO 3166-1 alpha-2 -> its continent (the vocabulary of warehouse.places.CONTINENTS).
create table countries (
    country         varchar primary key,
    name            varchar not null,
    continent       varchar not null
);
