-- gpu_matches(gpu, term): whether GPU id (or family id) `gpu` belongs to the series `term`, the
-- rule of the API's gpu=<term> filter. A term that is a canonical id (a row of gpus) matches
-- that GPU only ('h200' is not 'h200-nvl', 'rtx-3090' not 'rtx-3090-ti'); any other term is a
-- family prefix and matches itself and every id starting with it plus '-' ('h100' matches
-- 'h100-sxm', 'h100-pcie', 'h100-nvl'). Null when `gpu` is null.
-- Usage: select * from price_changes where gpu_matches(gpu_id, 'h100');
-- Kind: macro
-- Grain: a scalar macro (a boolean per row it is applied to).
-- Depends on: gpus.
-- Published: yes
create or replace macro gpu_matches(gpu, term) as
    gpu = term
    or (term::varchar not in (select gpu_id from gpus) and starts_with(gpu, term::varchar || '-'))
