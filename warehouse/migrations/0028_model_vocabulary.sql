-- 0028: each reference model's vocabulary (issue 24: the embedding table and lm_head are costed
-- apart from the transformer blocks). vocab_size from the model's config.json (the row's
-- source_url); tied_embeddings: the lm_head is the embedding table (config.json's
-- tie_word_embeddings). Forward-only; the models table is reloaded from warehouse/seeds/models.csv
-- every run, so the defaults below never survive a run.
alter table models add column vocab_size integer not null default 0;
alter table models add column tied_embeddings boolean not null default false;
