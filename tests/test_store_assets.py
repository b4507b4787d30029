"""The store's gate for asset files (``records/assets/``): what ``kb import --format adr`` copies
the images of an ADR log through. Atomic, never overwriting, the same bytes reused."""

from __future__ import annotations

import pytest

from kb.errors import WriteError
from kb.store import load_records, save_asset


def test_save_asset_reuses_the_same_bytes_and_never_overwrites(tmp_path):
    assert save_asset(tmp_path, "decisions/a.png", b"one") == "decisions/a.png"
    assert save_asset(tmp_path, "decisions/a.png", b"one") == "decisions/a.png"
    assert save_asset(tmp_path, "decisions/a.png", b"two") == "decisions/a-2.png"
    assert (tmp_path / "assets/decisions/a.png").read_bytes() == b"one"
    assert (tmp_path / "assets/decisions/a-2.png").read_bytes() == b"two"
    assert load_records(tmp_path).problems == []


@pytest.mark.parametrize("rel", ["../a.png", "/abs.png", "decisions/.hidden.png", "decisions/noext", "a//b.png"])
def test_save_asset_refuses_a_path_outside_assets(tmp_path, rel):
    with pytest.raises(ValueError, match="expected a relative path such as 'decisions/plot.png'"):
        save_asset(tmp_path, rel, b"x")


def test_save_asset_refuses_a_catalog(tmp_path):
    (tmp_path / "CATALOG.md").write_text("a catalog\n", encoding="utf-8")
    with pytest.raises(WriteError, match="catalogs are read-only"):
        save_asset(tmp_path, "decisions/a.png", b"x")
