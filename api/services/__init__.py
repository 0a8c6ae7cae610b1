"""Answers computed from a snapshot, one module per resource; controllers call these."""
