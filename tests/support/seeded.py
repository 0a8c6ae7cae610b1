"""Fresh seeded warehouses for tests, copied from one template instead of built each time.

A new warehouse file costs ~0.13 s to migrate and ~0.3 s to seed (the ECB history alone is
183,000 rows), and dozens of test fixtures start from one. ``seeded_template`` (a session
fixture in tests/conftest.py) builds the file once per worker the way every warehouse is
seeded (``pipelines.ingest.ensure_seeded``: migrations, then ``load_seeds`` in a transaction);
``seeded_warehouse`` copies it (~10 ms for the 18.6 MB file). The copy is the same file a fresh
seeding writes, so only tests about migrating or seeding themselves need to build their own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from warehouse.db import Warehouse


def seeded_warehouse(template: Path, target: Path) -> Warehouse:
    """A warehouse at ``target`` (which must not exist yet) holding a copy of ``template``."""
    if target.exists():
        raise FileExistsError(f"{target} exists: a seeded copy starts a new warehouse")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, target)
    return Warehouse(target)
