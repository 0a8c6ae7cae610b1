"""benchmarks/interop_check.py extracts gpuhunt's integrity tests through
tests.support.archives, which must work on Debian 12's Python 3.11.2 (no ``filter=``)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from tests.support.archives import UnsafeArchive, extract_members


def _archive(tmp_path: Path, names: list[str]) -> Path:
    path = tmp_path / "a.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name in names:
            data = b"x = 1\n"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("has_data_filter", [True, False])
def test_interop_extract_works_without_extractall_filter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, has_data_filter: bool
) -> None:
    if not has_data_filter:  # Python 3.11.2: no tarfile.data_filter, no filter= keyword
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
        real = tarfile.TarFile.extractall

        def no_filter_keyword(self, path=".", members=None, *, numeric_owner=False):
            return real(self, path, members, numeric_owner=numeric_owner)

        monkeypatch.setattr(tarfile.TarFile, "extractall", no_filter_keyword)
    archive = _archive(tmp_path, ["integrity_tests/test_a.py"])
    with tarfile.open(archive) as tar:
        extract_members(tar, str(tmp_path / "out"), tar.getmembers())
    assert (tmp_path / "out" / "integrity_tests" / "test_a.py").read_text() == "x = 1\n"


def test_interop_extract_refuses_a_path_leaving_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    archive = _archive(tmp_path, ["../escape.py"])
    with tarfile.open(archive) as tar, pytest.raises(UnsafeArchive, match="escape"):
        extract_members(tar, str(tmp_path / "out"), tar.getmembers())
    assert not (tmp_path / "escape.py").exists()
