-- 0018: availability as data (issue 22). Forward-only.
-- observations.available: whether the source says the offer can be bought now (true: in stock,
-- deployable in a listed location, a live listing; false: no location, sold out, "contact
-- sales", flagged not offered, past its end of service; null: the source does not say).
-- observations.available_until: an end of service the provider announces (UTC); current_offers
-- serves an offer as not available from then on. Every observation before this migration: null
-- (unknown), as its source was never read for it.
alter table observations add column available boolean;
alter table observations add column available_until timestamptz;
