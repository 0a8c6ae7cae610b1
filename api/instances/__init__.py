"""GET /instances: the current offers, its fast route and its query parser."""
