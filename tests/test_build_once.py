"""kb build loads the records once: build_site checks them and hands the graph to the plugin."""

from __future__ import annotations

from conftest import CAMPAIGN_RECORDS

import kb.pipeline
from kb.site.build import build_site


def test_the_records_are_loaded_once_per_build(tmp_path, monkeypatch):
    calls: list[str] = []
    real = kb.pipeline.load_records

    def counting(root, *args, **kwargs):
        calls.append(str(root))
        return real(root, *args, **kwargs)

    monkeypatch.setattr(kb.pipeline, "load_records", counting)
    site = build_site(CAMPAIGN_RECORDS, site_dir=str(tmp_path / "site"))
    assert (site / "index.html").is_file()
    assert calls.count(str(CAMPAIGN_RECORDS)) == 1, calls
