-- 0024: what each token estimate assumes, stored beside it (issue 24). Forward-only.
-- token_estimates is rebuilt every run (warehouse/estimates.py); the columns are
-- warehouse.economics.assumption_fields of the estimate, null when the model does not fit:
-- the engine class, the engine's batch cap, what stopped the batch growing (kv_cache,
-- batch_cap or concurrency), the KV-cache budget per replica (GB = 10^9 bytes), the share of
-- datasheet HBM bandwidth the decode step's weight + KV traffic reaches (0..1), and the regime
-- that limits the tokens/s (memory_bound_decode, compute_bound, kv_capacity_bound). Rows
-- written before it keep nulls until the next run rebuilds the table.
alter table token_estimates add column engine_class varchar;
alter table token_estimates add column batch_cap_per_replica integer;
alter table token_estimates add column batch_limited_by varchar;
alter table token_estimates add column kv_cache_gb_per_replica double;
alter table token_estimates add column hbm_bandwidth_fraction double;
alter table token_estimates add column limiting_regime varchar;
