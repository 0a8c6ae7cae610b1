-- 0025: what each provider's parser is verified against (issue 26), a column of the provider
-- facts seed derived from the scraper registry (scrapers.base.Provider.verified): 'capture'
-- (real recorded responses of the provider) or 'docs' (the provider's own published API or
-- pricing-page example); null for a provider with facts and no scraper. Forward-only; the
-- seed table is reloaded every run, so no row keeps a null it should not have.
alter table provider_facts add column verified varchar;
