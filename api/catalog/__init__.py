"""The catalog: GET /gpus, /providers, /providers/{slug}, /serverless."""
