-- 0009: parts of a multi-request fetch that failed on their own (issue 11).
-- Forward-only. A provider fetched in several requests (AWS per region, a paged API) publishes
-- what answered; each part that failed alone (one region's 404, page 3's timeout) is recorded
-- with the scrape it belongs to, so the provider's status says what the served data is missing.
create table scrape_skipped_parts (
    scrape_id   varchar not null,
    provider    varchar not null,
    part        varchar not null,   -- "region ap-east-2", "page 3", ...
    error       varchar not null,   -- the part's one-line error, credentials scrubbed
    primary key (scrape_id, part)
);
