-- 0014: offer identity (issue 21). Forward-only. (Numbered 0014 on its branch so it runs
-- before the lead's 0014/0015 land; the lead renumbers it, 0016, at merge: it depends on
-- neither.)
-- An offer's id hashes its product key (warehouse.records.offer_id), which the scraper gives:
-- one product read from two layouts (an API's gpu type id, a web page's display name) is one
-- offer. Stored offers of an old spelling are re-keyed, and the split series merged into one
-- interval list, by warehouse.identity.merge_offer_identities, which the ingest runs for each
-- provider with the provider's keys before its scrapes load (only the scrapers know the
-- spellings; this file names no provider). Each re-keyed id is recorded here, so an old id
-- (in a bookmark, an export) still says which offer it became.
create table offer_id_merges (
    old_offer_id    varchar primary key,
    offer_id        varchar not null,
    provider        varchar not null,
    instance_type   varchar not null,   -- the spelling the old id was stored under
    product_key     varchar not null,   -- the key its offer has now
    merged_at       timestamptz not null
);
