"""The test suite. Importing the package (pytest does, before tests/conftest.py and any test
module) turns bytecode writing back on for the suite's processes.

The team's machines and CI set PYTHONDONTWRITEBYTECODE=1, and ``uv sync`` compiles only the
installed packages (pyproject.toml, ``tool.uv`` ``compile-bytecode``), so each of the four
pytest-xdist workers compiled and assertion-rewrote ~500 modules on every run (collection:
19.7 s CPU per process, 9.9 s with .pyc), and every ``gpuprices`` subprocess the suite starts
compiled scrapers/, warehouse/, pipelines/ and api/ from source again. The suite writes and
reads __pycache__ (gitignored) instead.
"""

import os
import sys

sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
