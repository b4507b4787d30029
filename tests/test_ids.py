"""Record ids: one slug rule and one suffix scheme for every writer (kb.ids)."""

from __future__ import annotations

import datetime as dt

import pytest

from kb.ids import dated_id, free_id, slugify, suffixed
from kb.importers.drafts import _new_id
from kb.pipeline import load_graph
from kb.usecases.log import AttemptDraft, build_attempt

DAY = dt.date(2026, 3, 1)


@pytest.mark.parametrize("title, slug", [
    ("Try CUDA 12.8.1", "try-cuda-12.8.1"),
    ("Über-fast café", "uber-fast-cafe"),
    ("FlashInfer allreduce fusion on CUDA 13.0!", "flashinfer-allreduce-fusion-on-cuda-13.0"),
    ("v0.6.17 … then 1.2.3.", "v0.6.17-then-1.2.3"),
    ("日本語", "ribenyu"),  # transliterated (anyascii), not lost
])
def test_slugify(title, slug):
    assert slugify(title) == slug


@pytest.mark.parametrize("title", ["Try CUDA 12.8.1", "Über-fast café", "NCCL_ALGO=Tree (PCIe)"])
def test_kb_log_and_kb_import_give_the_same_id_for_the_same_title_and_date(write_tree, title):
    root = write_tree({"platforms/p.yaml": {"title": "P", "gpu": "G", "gpu_count": 1, "compute_capability": "12.0"},
                       "campaigns/c.yaml": {"title": "C", "model": "M", "platform": "p",
                                            "metric": {"name": "output_throughput", "unit": "tok/s"}}})
    logged = build_attempt(load_graph(root), AttemptDraft(title=title, approach="a", outcome="neutral", date=DAY))
    imported = _new_id(DAY, title, set(), {})
    assert logged.id == imported == dated_id(DAY, title)


def test_one_suffix_scheme_for_every_writer():
    taken = {"2026-03-01-x", "2026-03-01-x-2"}
    assert free_id("2026-03-01-x", taken) == "2026-03-01-x-3"
    assert _new_id(DAY, "x", set(taken), {}) == "2026-03-01-x-3"
    assert suffixed("a" * 120, 12) == "a" * 117 + "-12"
