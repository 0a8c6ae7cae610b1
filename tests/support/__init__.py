"""Code the tests and the ``benchmarks/`` scripts share: replays under new dates, the in-process
ingest, an API server in a subprocess, load and kill -9 drivers, generated histories and
warehouses, the estimates calibration. The benchmarks are command lines over this code (they
print figures at full size); the tests run it small and assert. Tests never import
``benchmarks/``."""
