"""The scale benchmark keeps working: a tiny campaign through every step (no timing asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import bench_scale  # noqa: E402
from gen_campaign import generate  # noqa: E402

from kb.pipeline import load  # noqa: E402


def test_the_generator_is_seeded_and_valid(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    counts = generate(a, 60, seed=5)
    generate(b, 60, seed=5)
    assert counts == {"attempts": 60, "blockers": 8, "decisions": 3, "stacks": 2, "campaigns": 1, "platforms": 1}
    files = sorted(p.relative_to(a) for p in a.rglob("*.yaml"))
    assert files == sorted(p.relative_to(b) for p in b.rglob("*.yaml"))
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    loaded = load(a)
    assert loaded.problems == []
    assert len(loaded.records) == 60 + 8 + 3 + 2 + 1 + 1
    # multi-level blocker chains: some attempt's why() walks at least three blockers
    from kb.models import Attempt
    from kb.queries import why

    depths = [max(len(c) for c in why(loaded.graph, x.id).chains) for x in loaded.graph.of_kind(Attempt) if x.blocked_by]
    assert max(depths) >= 3


def test_the_benchmark_runs_end_to_end_at_a_tiny_size(tmp_path, capsys):
    results = bench_scale.main(["--sizes", "30", "--repeat", "1", "--work", str(tmp_path)])
    (r,) = results
    for step in ("read bytes", "libyaml parse", "check cold", "check warm", "roots", "why", "unblocks",
                 "check after edit", "roots after edit", "why after edit", "unblocks after edit",
                 "kb build", "material floor"):
        assert r[step]["s"] > 0 and r[step]["rss_mb"] > 1, step
    assert r["pages"] == sum(1 for _ in (tmp_path / "n30" / "floor" / "site").rglob("*.html")) - 1  # 404.html
    out = capsys.readouterr().out
    assert "| `kb check` warm |" in out and "× libyaml" in out
    assert "| `kb roots` after one edit |" in out and "× check after one edit" in out
    # the edited attempt is put back byte for byte
    records = tmp_path / "n30" / "records"
    fresh = tmp_path / "fresh"
    generate(fresh, 30, seed=13)
    assert all((records / p.relative_to(fresh)).read_bytes() == p.read_bytes() for p in fresh.rglob("*.yaml"))


def test_the_fleet_generator_is_seeded_valid_and_many_campaigns(tmp_path):
    from gen_fleet import generate_fleet

    a, b = tmp_path / "a", tmp_path / "b"
    counts = generate_fleet(a, 200, seed=3)
    generate_fleet(b, 200, seed=3)
    assert counts == {"attempts": 200, "blockers": 10, "decisions": 5, "stacks": 200, "campaigns": 40, "platforms": 8}
    files = sorted(p.relative_to(a) for p in a.rglob("*.yaml"))
    assert files == sorted(p.relative_to(b) for p in b.rglob("*.yaml"))
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    loaded = load(a)
    assert loaded.problems == []
    from kb.models import Campaign

    assert len({c.platform for c in loaded.graph.of_kind(Campaign)}) == 8


def test_the_benchmark_runs_on_the_fleet_generator(tmp_path):
    (r,) = bench_scale.main(["--sizes", "40", "--repeat", "1", "--work", str(tmp_path), "--generator", "fleet",
                             "--build-max", "0"])
    assert r["check warm"]["s"] > 0 and r["roots"]["s"] > 0
    assert (tmp_path / "fleet-n40" / "records" / "campaigns").is_dir()
