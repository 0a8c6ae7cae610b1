"""Operations: GET /health, /version, /metrics and POST /admin/refresh."""
