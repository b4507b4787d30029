"""kb import --format adr: adr-tools, MADR 2/3/4 and log4brains folders become decision records,
with status, date, deciders, supersede links and the body kept, and nothing dropped silently."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.importers.adr import import_adrs
from kb.models import Decision
from kb.pipeline import load
from kb.store import load_records

ADR = Path(__file__).parent / "fixtures" / "adr"


def _import(tmp_path: Path, name: str, **kw):
    report = import_adrs(tmp_path / "records", ADR / name, **kw)
    return report, {r.id: r for r in report.results}


def _record(tmp_path: Path, rid: str) -> Decision:
    rec = load_records(tmp_path / "records").records.get(rid)
    assert isinstance(rec, Decision), rid
    return rec


def _all_text(rec: Decision) -> str:
    """Every string of the record, whitespace folded (to look for the ADR's sentences)."""
    out: list[str] = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(rec.model_dump(mode="json"))
    return " ".join(" ".join(out).split())


_SKIP_LINE = re.compile(r"^(#|---|\s*[-*]\s+(Status|Date|Deciders|Tags):|(status|date|deciders|decision-makers|"
                        r"consulted|informed):|Date:|```)", re.I)


def _content_lines(path: Path) -> list[str]:
    """The ADR's prose and list items, without headings, metadata and Markdown markers."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or _SKIP_LINE.match(line):
            continue
        text = re.sub(r"^\s*[-*]\s+", "", line).strip()
        text = re.sub(r"^(Good|Bad|Neutral), because\s*", "", text)
        text = re.sub(r'^Chosen option: "[^"]*", because\s*', "", text)
        text = re.sub(r"^(Superseded by|Supersedes)\s+\[.*", "", text)  # became links
        if text and text not in ("Accepted", "Proposed", "Superseded"):
            out.append(" ".join(text.split()))
    return out


@pytest.mark.parametrize("name", ["adr-tools", "madr2", "madr3", "madr4", "log4brains"])
def test_nothing_is_dropped_and_the_records_check(tmp_path, name):
    report, _ = _import(tmp_path, name)
    assert report.results and all(r.state == "written" for r in report.results), report.to_dict()
    assert load(tmp_path / "records").problems == []
    for r in report.results:
        text = _all_text(_record(tmp_path, r.id))
        for line in _content_lines(Path(r.file)):  # a team's own log keeps what it says, e-mail addresses too
            assert line in text, f"{r.file}: {line!r} is missing from {r.id}"


def test_adr_tools_status_date_links_and_body(tmp_path):
    report, by_id = _import(tmp_path, "adr-tools")
    assert sorted(by_id) == ["2025-11-03-record-architecture-decisions", "2025-11-10-serve-with-vllm",
                             "2026-01-20-serve-with-sglang"]
    assert {r.format for r in report.results} == {"adr-tools"}
    assert [Path(p).name for p, _ in report.skipped] == ["README.md"]
    old = _record(tmp_path, "2025-11-10-serve-with-vllm")
    new = _record(tmp_path, "2026-01-20-serve-with-sglang")
    assert (old.status, old.date.isoformat(), old.title) == ("superseded", "2025-11-10", "Serve with vLLM")
    assert new.supersedes == ["2025-11-10-serve-with-vllm"] and new.status == "accepted"
    assert new.outcome.chosen == "Serve with SGLang"
    assert new.considered_options[0].description == "Move serving to SGLang, keep the vLLM configuration for comparison."
    assert "```mermaid" in new.context
    assert old.consequences.neutral == ["Prefix caching comes for free.", "Speculative decoding support is behind SGLang's."]
    # the amend link has no kb field: kept in notes, and said so
    assert "Amended by [4. Pin sgl-kernel](0004-pin-sgl-kernel.md)" in new.notes
    assert by_id["2026-01-20-serve-with-sglang"].warnings == [
        f"{ADR}/adr-tools/doc/adr/0003-serve-with-sglang.md: status line 'Amended by [4. Pin sgl-kernel]"
        "(0004-pin-sgl-kernel.md)' has no field in a kb decision: kept in notes"]
    assert new.source[0].format == "adr-tools" and new.source[0].locator == "ADR 3"


def test_madr4_front_matter_consequences_and_confirmation(tmp_path):
    report, by_id = _import(tmp_path, "madr4")
    rec = _record(tmp_path, "2026-03-02-pick-tensor-parallelism-8-on-pcie")
    assert by_id[rec.id].format == "madr-4"
    assert (rec.status, rec.date.isoformat(), rec.deciders) == ("accepted", "2026-03-02", ["Kenji Sato"])
    assert [o.title for o in rec.considered_options] == ["TP8", "TP4 x PP2"]
    assert rec.outcome.chosen == "TP8"
    assert rec.outcome.rationale == "it measured 54 tok/s against 41 tok/s for TP4 x PP2."
    assert rec.consequences.good == ["one process group is simpler to run"]
    assert rec.consequences.bad == ["every layer pays an allreduce over PCIe"]
    tp4 = rec.considered_options[1]
    assert tp4.pros == ["fewer allreduces cross the PCIe switch"] and tp4.cons == ["throughput was lower in every run"]
    assert "Neutral, because pipeline bubbles depend on batch size" in tp4.description
    assert "**Confirmation**\n\nThe weekly benchmark compares the two layouts." in rec.notes
    assert "**Consulted**\n\nNCCL maintainers" in rec.notes
    assert "kenji@example.com" in rec.notes and report.redactions["email"] == 0  # kept: the team's own document
    old = _record(tmp_path, "2026-02-20-pick-pipeline-parallelism-2")
    assert old.status == "superseded" and rec.supersedes == [old.id]


def test_madr3_and_madr2(tmp_path):
    _import(tmp_path, "madr3")
    rec = _record(tmp_path, "2026-02-14-adopt-cuda-13-for-the-blackwell-nodes")
    assert rec.deciders == ["Ana Ruiz", "Kenji Sato"] and rec.status == "proposed"
    assert rec.outcome.chosen == "CUDA 13.0" and rec.outcome.rationale == "prebuilt FlashInfer wheels for SM120 target it."
    assert rec.consequences.neutral == ["the driver has to move to 580 either way"]
    assert "**Validation**\n\nA nightly job" in rec.notes and "**Informed**" in rec.notes
    assert "**More Information**\n\nRevisit when PyTorch ships cu130 wheels by default." in rec.notes
    _import(tmp_path, "madr2")
    rec = _record(tmp_path, "2025-12-01-use-an-fp8-kv-cache")
    assert rec.deciders == ["Ana Ruiz", "Kenji Sato"] and rec.date.isoformat() == "2025-12-01"
    assert rec.decision_drivers == ["memory per GPU is fixed at 96 GiB", "accuracy must stay within 0.5 points on our eval"]
    assert [o.title for o in rec.considered_options] == ["FP8 KV cache", "Smaller batch", "Offload to host memory"]
    assert rec.considered_options[1].description == "Lower throughput for everyone."
    assert rec.consequences.good == ["about twice the cached tokens"]
    assert "**Technical Story**\n\nTechnical Story: long prompts run out of KV cache memory at batch 64" in rec.notes
    assert "Refined by [0002](0002-calibrate-kv-scales.md)" in rec.notes  # target not imported: kept


def test_log4brains_draft_tags_and_dates_from_file_names(tmp_path):
    report, by_id = _import(tmp_path, "log4brains")
    assert sorted(Path(p).name for p, _ in report.skipped) == ["index.md", "template.md"]
    tree = _record(tmp_path, "2026-01-05-use-nccl-tree-allreduce-on-pcie")
    ring = _record(tmp_path, "2025-12-01-use-ring-allreduce")
    assert by_id[tree.id].format == "log4brains"
    assert tree.status == "proposed" and tree.tags == ["nccl", "pcie"] and tree.date.isoformat() == "2026-01-05"
    assert any("status 'draft' recorded as 'proposed', the nearest kb status; the ADR's words kept verbatim" in w
               for w in by_id[tree.id].warnings)
    assert "**Status in the ADR**\n\ndraft" in tree.notes
    # the ring ADR says "superseded by" a draft: the log's own statement is kept, with a warning
    # (kb check warns too: a decision stands until its replacement is accepted)
    assert tree.supersedes == [ring.id] and ring.status == "superseded"
    assert any("the ADR says it is superseded, but only 2026-01-05-use-nccl-tree-allreduce-on-pcie (proposed) lists "
               "it: kept as the log states" in w for w in by_id[ring.id].warnings)
    assert load(tmp_path / "records").problems == []


def test_reimport_writes_nothing_and_never_overwrites(tmp_path):
    _import(tmp_path, "madr4")
    path = tmp_path / "records" / "decisions" / "2026-03-02-pick-tensor-parallelism-8-on-pcie.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "tags: [edited]\n", encoding="utf-8")
    before = sorted((tmp_path / "records" / "decisions").iterdir())
    report, _ = _import(tmp_path, "madr4")
    assert [r.state for r in report.results] == ["exists", "exists"]
    assert sorted((tmp_path / "records" / "decisions").iterdir()) == before
    assert path.read_text(encoding="utf-8").endswith("tags: [edited]\n")


def test_dry_run_writes_nothing(tmp_path):
    report, _ = _import(tmp_path, "adr-tools", dry_run=True)
    assert [r.state for r in report.results] == ["new"] * 3 and not (tmp_path / "records").exists()


def test_cli_import_adr(tmp_path):
    shutil.copytree(ADR / "adr-tools", tmp_path / "adrs")
    (tmp_path / "adrs" / "doc" / "adr" / "0009-broken.md").write_bytes(b"# 9. Broken\n\xff\xfe\n")
    runner = CliRunner()
    res = runner.invoke(cli, ["--records", str(tmp_path / "records"), "import", "--format", "adr", str(tmp_path / "adrs")])
    assert res.exit_code == 1  # one file could not be read; the others are written
    assert "written  2026-01-20-serve-with-sglang" in res.stdout
    assert "0009-broken.md:2: not UTF-8 (byte 0xff); save the file as UTF-8" in res.stderr
    assert "1 failed, 3 written; 1 warning(s)" in res.stderr
    assert len(list((tmp_path / "records" / "decisions").glob("*.yaml"))) == 3
    res = runner.invoke(cli, ["--records", str(tmp_path / "records"), "import", str(tmp_path / "adrs")])
    assert res.exit_code == 2 and "--format adr" in res.output
