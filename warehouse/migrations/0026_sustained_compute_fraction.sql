-- 0026: the share of the datasheet tensor peak a board's power sustains, stored beside each
-- token estimate's other assumptions (issue 24; warehouse/economics/power.py). Forward-only.
-- 1.0 unless a higher-power board of the same die (warehouse/seeds/gpu_dies.csv) shows the
-- board is power limited; null when the model does not fit. token_estimates is rebuilt every
-- run, so rows written before it keep nulls until the next run.
alter table token_estimates add column sustained_compute_fraction double;
