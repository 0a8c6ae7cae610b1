-- 0023: listings and single-GPU prices (issue 22, item 6). Forward-only.
-- listings: how many of the source's rows one observation stands for. A marketplace that lists
-- every host as its own row may list identical rows (same GPU, count, price, region, specs; the
-- source tells them apart by nothing it publishes): they are one offer with listings = N
-- (scrapers.parsing.collapse_listings), never N offers. 1 for every other offer, and for every
-- observation stored before this migration.
alter table observations add column listings integer default 1;
update observations set listings = 1 where listings is null;

-- A price for one GPU of the instance's model that the source prints beside the instance price
-- (a derived column of the same row: CoreWeave's "Inference Single GPU" column). A property of
-- the offer, not an offer of its own: single_gpu_price as quoted (the offer's currency per its
-- price_unit, for one GPU) and single_gpu_price_per_hour_usd, converted once by
-- warehouse/units.py at the observation's exchange rate. Null: the source prints none.
alter table observations add column single_gpu_price decimal(18, 9);
alter table observations add column single_gpu_price_per_hour_usd decimal(18, 6);
