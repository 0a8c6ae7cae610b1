"""The read queries of GET /health and GET /metrics: a snapshot's offer counts, in all and by
data origin (how many providers are live is ``warehouse.queries.liveness``)."""

from __future__ import annotations

HEALTH_SQL = """
    select count(*) as offers, count(distinct provider) as providers,
           count(*) filter (where expired) as expired_offers
    from current_offers
"""
HEALTH_ORIGINS_SQL = """
    select data_origin, count(*) as offers, count(distinct provider) as providers,
           min(age_days) as newest_age_days, max(age_days) as oldest_age_days
    from current_offers group by data_origin order by data_origin
"""
