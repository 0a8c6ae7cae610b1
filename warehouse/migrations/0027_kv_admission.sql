-- 0027: the scheduler's KV admission policy each token estimate assumes, stored beside its other
-- assumptions (issue 24; warehouse.economics.KV_ADMISSION_RESERVED_OUTPUT_FRACTION).
-- Forward-only. max_utilization: sequences are admitted against the KV cache they hold and
-- pages are allocated as they grow (vLLM, SGLang, TensorRT-LLM MAX_UTILIZATION), so the batch
-- is set by the average occupancy; guaranteed_no_evict: prompt plus whole output reserved at
-- admission (TensorRT-LLM's library default). Null when the model does not fit; token_estimates
-- is rebuilt every run, so rows written before it keep nulls until the next run.
alter table token_estimates add column kv_admission varchar;
