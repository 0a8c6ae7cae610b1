-- 0011: the problem codes of a scrape (issue 14: structured outcomes).
-- Forward-only. `error` stays the one-line message people read; `problem_codes` says what went
-- wrong in words nothing rewords (warehouse/problems.py ProblemCode: 'no_offers_parsed',
-- 'price_jump', 'too_many_offers', ...), so code that decides about a stored scrape reads these,
-- never the message. Null for scrapes recorded before this migration and for clean successes.
alter table scrapes add column problem_codes varchar[];
