"""One module per registered provider (named by its slug): how to add a made-up row to its
newest capture.

Each module defines ``inject(body: bytes) -> tuple[bytes, str]``: the capture's body with one
extra GPU row of an instance family / SKU / GPU that does not exist, built the way the page or
API lays out its real rows (usually a copy of a real row, renamed), and the made-up name. The
contract test (``tests/scrapers/test_unknown_rows.py``) checks that the provider still publishes
every known offer and reports the row as an ``unknown_*`` exclusion naming it.
"""
