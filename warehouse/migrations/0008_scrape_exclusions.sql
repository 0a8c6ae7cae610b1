-- 0008: rows a scrape recognised as not offers (issue 11).
-- Forward-only. A parser counts the rows it leaves out per reason ("contact for pricing",
-- "no_gpu", "unknown_family", ...); the counts commit with the scrape they belong to, so a
-- provider's status can say what its newest page held besides the offers it served.
create table scrape_exclusions (
    scrape_id   varchar not null,
    provider    varchar not null,
    reason      varchar not null,
    row_count   integer not null check (row_count > 0),
    primary key (scrape_id, reason)
);
