-- 0020: every curated fact says where it comes from (issue 22 item 3). Forward-only.
-- Each row of seeds/provider_facts.csv, serverless_platforms.csv and serverless_tiers.csv now
-- carries source_kind ('provider': the provider's own page, docs, API or its own repository;
-- 'third_party': any fact of the row rests on someone else's page) and observed_basis, how its
-- date is known: 'published' (a date printed on the source), 'captured' (the time of a stored
-- capture, named in capture_file / capture_files, paths under ../shared/snapshots),
-- 'retrieved' (the day a first-party page was read, no stored copy) or 'undated' (a third-party
-- source that prints no date: the row has no date, and a tier priced from it has no age and
-- is expired). A third-party row is never dated by the day it was read. The loader
-- (warehouse/facts.py) enforces the vocabulary and these rules, naming the file and line; the
-- tables are replaced from the seeds on every run, so the added columns are null only until
-- then. An undated row's date is null, so the not-null constraints on the dates go.
alter table provider_facts add column source_kind varchar;
alter table provider_facts add column observed_basis varchar;
alter table provider_facts add column capture_files varchar;  -- space-separated, like source_urls
alter table provider_facts alter column facts_as_of drop not null;

alter table serverless_platforms add column source_kind varchar;
alter table serverless_platforms add column observed_basis varchar;
alter table serverless_platforms add column capture_files varchar;
alter table serverless_platforms alter column facts_as_of drop not null;

alter table serverless_tiers add column source_kind varchar;
alter table serverless_tiers add column observed_basis varchar;
alter table serverless_tiers add column capture_file varchar;
alter table serverless_tiers alter column source_date drop not null;
alter table serverless_tiers alter column source_date_basis drop not null;
