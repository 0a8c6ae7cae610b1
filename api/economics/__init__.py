"""LLM-serving economics: GET /models, /economics/estimates, /fit, /breakeven."""
