-- price_kind(pricing, serverless, provider_kind): the kind of a price, which decides its shelf
-- life (warehouse/shelf_life.py; the `shelf_lives` table holds the days per kind).
-- Grain: a scalar macro. Rule, first match wins: a price the provider resets daily ('dynamic'),
-- an interruptible one ('spot'), a serverless list price ('serverless'), any price of a
-- marketplace or auction provider (provider_facts.kind = 'marketplace': host listings, bids,
-- server auctions) ('marketplace'), a reserved-term list price ('reserved'), else an on-demand
-- list price ('on_demand').
-- Kind: macro
-- Depends on: nothing (its arguments).
-- Published: yes
create or replace macro price_kind(pricing, serverless, provider_kind) as
case
    when pricing = 'dynamic' then 'dynamic'
    when pricing = 'spot' then 'spot'
    when serverless then 'serverless'
    when provider_kind = 'marketplace' then 'marketplace'
    when pricing = 'reserved' then 'reserved'
    else 'on_demand'
end
