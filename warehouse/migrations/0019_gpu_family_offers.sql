-- 0019: offers that name only a GPU
-- family (issue 22 item 2). Forward-only.
-- A row whose GPU name fits several canonical models even with its own facts (VRAM, the form
-- factor it states) was loaded with gpu_id null and nothing else: `gpu=a100` and the matrix
-- missed it. Such a row now says which family it is, as imported history rows do (0010):
-- `gpu_family` is the longest run of id segments every model agreeing with the row shares
-- ('a100-80gb' for "NVIDIA A100" with 80 GB; warehouse.gpus.family_from_facts), set only where
-- gpu_id is null. current_offers carries it; the API's gpu= filter matches it.
-- A curated serverless tier without candidate GPUs (a tier named just "A100") gets one the same
-- way, from its name and guaranteed memory.
-- Existing rows keep null (nothing is re-resolved here); the next load of a scrape fills it.
alter table observations add column gpu_family varchar;
alter table serverless_tiers add column gpu_family varchar;
