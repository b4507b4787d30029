"""kb new decision|blocker: valid skeletons, and a decision drafted from what an upgrade unblocks;
kb new platform|stack|campaign: starting a campaign from an empty records/ folder, without a baseline."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from click.testing import CliRunner
from unblock_cases import CASES, GATE, VERIFY

from kb.cli import cli
from kb.errors import InvalidRecords, QueryError
from kb.graph import KnowledgeGraph, build_graph
from kb.models import Campaign, Decision, Platform, Stack
from kb.pipeline import load_graph
from kb.site.build import build_site
from kb.store import load_records
from kb.usecases.new import (
    decision_from_upgrade,
    new_campaign,
    new_decision,
    new_platform,
    new_stack,
)


def invoke(root: Path, *args: str):
    return CliRunner().invoke(cli, ["--records", str(root), *args])


def read(path: str | Path) -> dict:
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def test_new_decision_is_a_valid_proposed_madr_skeleton(write_tree):
    root = write_tree(CASES)
    before = dt.date.today()  # the day the command ran: before or after it (a run across midnight)
    r = invoke(root, "new", "decision", "Adopt", "NCCL", "2.28")
    today = before if (root / "decisions" / f"{before.isoformat()}-adopt-nccl-2.28.yaml").exists() else dt.date.today()
    assert r.exit_code == 0, r.output
    path = root / "decisions" / f"{today.isoformat()}-adopt-nccl-2.28.yaml"
    assert r.stdout == f"{path}\n"
    data = read(path)
    assert (data["title"], data["status"], data["date"]) == ("Adopt NCCL 2.28", "proposed", today)
    assert data["considered_options"][0]["title"] == data["outcome"]["chosen"] == "Adopt NCCL 2.28"
    assert {"context", "decision_drivers", "considered_options", "outcome", "consequences"} <= set(data)
    assert load_records(root).problems == []


def test_new_blocker_is_a_valid_open_skeleton_and_never_overwrites(write_tree):
    root = write_tree(CASES)
    first = invoke(root, "new", "blocker", "NCCL hangs on P2P")
    second = invoke(root, "new", "blocker", "NCCL hangs on P2P", "--json")
    assert first.stdout == f"{root / 'blockers' / 'nccl-hangs-on-p2p.yaml'}\n"
    assert json.loads(second.stdout) == {"id": "nccl-hangs-on-p2p-2", "kind": "blocker",
                                         "path": str(root / "blockers" / "nccl-hangs-on-p2p-2.yaml"),
                                         "redacted": {}}
    assert read(first.stdout.strip())["title"] == "NCCL hangs on P2P"
    records = load_records(root)
    assert records.problems == []
    assert records.records.records["nccl-hangs-on-p2p"].status == "open"


def test_new_decision_from_upgrade_fills_context_resolves_evidence_and_stack_change(write_tree):
    root = write_tree(CASES)
    r = invoke(root, "new", "decision", "--from-upgrade", "cuda=13.0", "--from-upgrade", "flashinfer=0.6.17",
               "--from", "cu128", "Move to CUDA 13 and flashinfer 0.6.17")
    assert r.exit_code == 0, r.output
    data = read(r.stdout.strip())
    assert data["resolves"] == ["cuda12-only-bug", VERIFY, GATE, "needs-cuda-13"]
    assert data["considered_options"][0]["evidence"] == ["2026-02-21-eagle3", "2026-02-23-fusion"]
    assert data["stack_change"] == {"from": "cu128", "components": {"cuda": "13.0", "flashinfer": "0.6.17"}}
    assert data["campaign"] == "blackwell"
    ctx = data["context"]
    assert ctx.startswith("Moving from stack cu128 to cuda=13.0 flashinfer=0.6.17 would resolve 4 blockers:\n")
    assert f"- {GATE}: FlashInfer allreduce-fusion JIT gate lists only majors 9 and 10 (flashinfer>=0.6.17, cuda>=12.9)" in ctx
    assert "- 2026-02-21-eagle3: EAGLE-3 (regressed, output_throughput 54.1 tok/s; worth retrying)" in ctx
    assert "- torch-symm-mem-no-capability-12: no known fix (workaround: Leave --enable-torch-symm-mem off.)" in ctx
    assert load_records(root).problems == []


def test_an_upgrade_that_resolves_nothing_drafts_nothing(write_tree):
    root = write_tree(CASES)
    before = sorted((root / "decisions").glob("*")) if (root / "decisions").exists() else []
    r = invoke(root, "new", "decision", "--from-upgrade", "vllm=0.17", "--from", "cu128", "Nothing")
    assert r.exit_code == 1
    assert "vllm=0.17 resolves no standing blocker from stack cu128; nothing to draft a decision from" in r.output
    assert (sorted((root / "decisions").glob("*")) if (root / "decisions").exists() else []) == before


def test_bad_change_and_bad_usage(write_tree):
    root = write_tree(CASES)
    assert invoke(root, "new", "decision", "--from-upgrade", "cuda", "T").exit_code == 2
    assert invoke(root, "new", "decision").exit_code == 2
    assert invoke(root, "new", "decision", "--date", "2026-02-30", "T").exit_code == 2
    assert invoke(root, "new", "frobnicate", "T").exit_code == 2


def test_library_decision_from_the_campaign_records_upgrade_to_cuda_13(campaign_copy):
    kg = load_graph(campaign_copy)
    d = decision_from_upgrade(kg, "Upgrade to CUDA 13", {"cuda": "13.0"}, from_stack="cuda-12.8",
                              date=dt.date(2026, 2, 26))
    assert isinstance(d, Decision)
    assert d.id == "2026-02-26-upgrade-to-cuda-13"
    assert "sm120-unsupported-by-cuda-12.8-stack" in d.resolves
    assert d.evidence[:1] == ["2026-02-21-eagle3-speculation"]
    with pytest.raises(QueryError, match="resolves no standing blocker from stack cuda-13.0"):
        decision_from_upgrade(kg, "Again", {"cuda": "13.0"}, from_stack="cuda-13.0")


def test_new_decision_validates_the_title():
    assert new_decision("  Keep CUDA 12.8  ", date=dt.date(2026, 1, 2)).id == "2026-01-02-keep-cuda-12.8"


# --------------------------------------------------------------------------- kb new platform|stack|campaign

ROOT = Path(__file__).resolve().parent.parent

PLATFORM = ["new", "platform", "8x RTX PRO 6000", "--gpu", "NVIDIA RTX PRO 6000 Blackwell", "--count", "8",
            "--compute-capability", "12.0", "--interconnect", "PCIe Gen5", "--no-nvlink", "--memory-gib", "96"]
STACK = ["new", "stack", "CUDA 12.8", "--component", "cuda=12.8", "--component", "torch=2.9.1+cu128",
         "--component", "sglang=built from source"]
CAMPAIGN = ["new", "campaign", "Llama 70B on RTX PRO", "--model", "Llama-3.1-70B FP8",
            "--platform", "8x-rtx-pro-6000", "--stack", "cuda-12.8", "--target", "100 tok/s"]


def check_ok(root: Path) -> None:
    r = invoke(root, "check")
    assert r.exit_code == 0, r.output
    assert load_records(root).problems == []


@pytest.fixture
def empty_records(tmp_path: Path) -> Path:
    root = tmp_path / "records"
    root.mkdir()
    return root


def test_new_platform_derives_the_arch_and_loads_with_the_given_values(empty_records: Path):
    r = invoke(empty_records, *PLATFORM)
    assert r.exit_code == 0, r.output
    path = empty_records / "platforms" / "8x-rtx-pro-6000.yaml"
    assert r.stdout == f"{path}\n"
    check_ok(empty_records)
    p = load_records(empty_records).records.records["8x-rtx-pro-6000"]
    assert isinstance(p, Platform)
    assert (p.title, p.gpu, p.gpu_count, p.compute_capability, p.arch) == (
        "8x RTX PRO 6000", "NVIDIA RTX PRO 6000 Blackwell", 8, "12.0", "sm_120")
    assert (p.interconnect, p.nvlink, p.memory_gib) == ("PCIe Gen5", False, 96)
    again = invoke(empty_records, *PLATFORM, "--json")
    assert json.loads(again.stdout) == {"id": "8x-rtx-pro-6000-2", "kind": "platform",
                                        "path": str(empty_records / "platforms" / "8x-rtx-pro-6000-2.yaml"),
                                        "redacted": {}}
    assert read(path)["arch"] == "sm_120"  # the first is untouched


def test_new_stack_keeps_versions_and_source_text_and_inherits_a_base(empty_records: Path):
    r = invoke(empty_records, *STACK)
    assert r.exit_code == 0, r.output
    assert "'built from source' is not a PEP 440 version; kept as the component's source" in r.stderr
    r2 = invoke(empty_records, "new", "stack", "CUDA 13.0", "--base", "cuda-12.8", "--component", "CUDA=13.0",
                "--json")
    assert r2.exit_code == 0, r2.output
    assert json.loads(r2.stdout)["id"] == "cuda-13.0"
    check_ok(empty_records)
    kg = load_graph(empty_records)
    s = kg.get("cuda-12.8")
    assert isinstance(s, Stack) and s.title == "CUDA 12.8" and s.base is None
    assert {k: (c.version, c.source) for k, c in s.components.items()} == {
        "cuda": ("12.8", None), "torch": ("2.9.1+cu128", None), "sglang": (None, "built from source")}
    s13 = kg.get("cuda-13.0")
    assert s13.base == "cuda-12.8" and s13.components["cuda"].version == "13.0"
    assert kg.stack_components("cuda-13.0")["torch"].version == "2.9.1+cu128"


def test_new_campaign_without_a_baseline_loads_with_the_given_values(empty_records: Path):
    assert invoke(empty_records, *PLATFORM).exit_code == 0
    assert invoke(empty_records, *STACK).exit_code == 0
    before = dt.date.today()
    r = invoke(empty_records, *CAMPAIGN, "--direction", "higher", "--goal", "Faster decode.")
    days = {before, dt.date.today()}  # the day the command ran (a run across midnight has two)
    assert r.exit_code == 0, r.output
    assert "no baseline yet" in r.stderr
    check_ok(empty_records)
    c = load_records(empty_records).records.records["llama-70b-on-rtx-pro"]
    assert isinstance(c, Campaign)
    assert (c.title, c.model, c.platform, c.stack, c.status, c.goal) == (
        "Llama 70B on RTX PRO", "Llama-3.1-70B FP8", "8x-rtx-pro-6000", "cuda-12.8", "active", "Faster decode.")
    assert (c.metric.name, c.metric.unit, c.metric.direction.value) == ("output_throughput", "tok/s", "higher")
    assert c.baseline is None and c.target.display() == "100 tok/s" and c.started in days


def test_new_campaign_with_baseline_lower_direction_and_a_bare_number(empty_records: Path):
    assert invoke(empty_records, *PLATFORM).exit_code == 0
    r = invoke(empty_records, "new", "campaign", "TTFT", "--model", "M", "--platform", "8x-rtx-pro-6000",
               "--metric", "median_ttft", "--unit", "ms", "--direction", "lower", "--baseline", "250",
               "--target", "180 ms", "--started", "2026-03-01")
    assert r.exit_code == 0, r.output
    check_ok(empty_records)
    c = load_graph(empty_records).get("ttft")
    assert (c.metric.name, c.metric.unit, c.metric.direction.value) == ("median_ttft", "ms", "lower")
    assert (c.baseline.display(), c.target.display(), c.started, c.stack) == ("250 ms", "180 ms",
                                                                             dt.date(2026, 3, 1), None)
    assert read(r.stdout.strip())["baseline"] == "250 ms"


def test_dry_run_prints_the_yaml_and_writes_nothing(empty_records: Path):
    r = invoke(empty_records, *PLATFORM, "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("# records/platforms/8x-rtx-pro-6000.yaml (dry run: not written)\n")
    data = yaml.safe_load(r.stdout)
    assert (data["gpu_count"], data["compute_capability"], data["arch"]) == (8, "12.0", "sm_120")
    assert not (empty_records / "platforms").exists()
    for args in (STACK, CAMPAIGN):
        if args is CAMPAIGN:
            assert invoke(empty_records, *PLATFORM).exit_code == 0
            assert invoke(empty_records, *STACK).exit_code == 0
        r = invoke(empty_records, *args, "-n")
        assert r.exit_code == 0, r.output
        assert "(dry run: not written)" in r.stdout and yaml.safe_load(r.stdout)["title"]
    assert sorted(p.name for p in empty_records.rglob("*.yaml")) == ["8x-rtx-pro-6000.yaml", "cuda-12.8.yaml"]


def test_logging_or_importing_before_a_campaign_says_how_to_start_one(empty_records: Path):
    r = invoke(empty_records, "log", "--no-interactive", "-t", "x", "-a", "y", "-o", "neutral")
    assert r.exit_code == 2
    assert "kb log: --campaign: missing; give --campaign ID (no campaign yet: start one with 'kb new campaign " in r.output
    log = Path(__file__).parent / "corpus" / "claude-eagle-tp.jsonl"
    r = invoke(empty_records, "import", str(log), "--dry-run")
    assert r.exit_code == 2
    assert ("attempts need a campaign and records/ has none: start one first with 'kb new platform', "
            "'kb new stack' and 'kb new campaign' (README: Start a campaign), then import") in r.output


def test_dry_run_names_the_suffixed_id_a_real_run_takes(empty_records: Path):
    assert invoke(empty_records, *PLATFORM).exit_code == 0
    r = invoke(empty_records, *PLATFORM, "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("# records/platforms/8x-rtx-pro-6000-2.yaml (dry run: not written)\n")
    assert sorted(p.name for p in empty_records.rglob("*.yaml")) == ["8x-rtx-pro-6000.yaml"]


@pytest.mark.parametrize(("args", "option", "message"), [
    (["new", "stack", "S", "--base", "cuda-12.9", "--component", "cuda=13.0"], "--base",
     "unknown stack 'cuda-12.9'; did you mean 'cuda-12.8'?"),
    (["new", "campaign", "C", "--model", "M", "--platform", "8x-rtx-pro-600"], "--platform",
     "unknown platform '8x-rtx-pro-600'; did you mean '8x-rtx-pro-6000'?"),
    (["new", "campaign", "C", "--model", "M", "--platform", "8x-rtx-pro-6000", "--stack", "cuda-12"], "--stack",
     "unknown stack 'cuda-12'; did you mean 'cuda-12.8'?"),
    (["new", "campaign", "C", "--model", "M", "--platform", "cuda-12.8"], "--platform",
     "'cuda-12.8' is a stack, not a platform"),
    (["new", "campaign", "C", "--model", "M", "--platform", "8x-rtx-pro-6000", "--baseline", "82 ms"], "--baseline",
     "is in ms, but the headline metric is in tok/s"),
    (["new", "campaign", "C", "--model", "M", "--platform", "8x-rtx-pro-6000", "--target", "fast"], "--target",
     "'fast' is not a metric"),
    (["new", "campaign", "C", "--model", "M", "--platform", "8x-rtx-pro-6000", "--unit", "tokps"], "--unit",
     "unknown unit 'tokps'"),
    (["new", "campaign", "C", "--model", "M", "--platform", "8x-rtx-pro-6000", "--metric", "out put"], "--metric",
     "is not a metric name"),
    (["new", "campaign", "C", "--model", "M", "--platform", "8x-rtx-pro-6000", "--started", "2026-02-30"],
     "--started", "is not a date"),
    (["new", "platform", "P", "--gpu", "G", "--count", "0", "--compute-capability", "12.0"], "--count",
     "greater than or equal to 1"),
    (["new", "platform", "P", "--gpu", "G", "--count", "1", "--compute-capability", "12"], "--compute-capability",
     "write MAJOR.MINOR"),
    (["new", "platform", "P", "--gpu", "G", "--count", "1", "--compute-capability", "12.0", "--memory-gib", "-1"],
     "--memory-gib", "greater than 0"),
    (["new", "stack", "S", "--component", "cuda"], "--component", "is not NAME=VERSION"),
    (["new", "stack", "S", "--component", "cuda=13.0", "--component", "CUDA=12.8"], "--component", "given twice"),
    (["new", "stack", "S"], "--component", "at least one component"),
])
def test_bad_values_exit_2_naming_the_option_and_write_nothing(empty_records: Path, args, option, message):
    assert invoke(empty_records, *PLATFORM).exit_code == 0
    assert invoke(empty_records, *STACK).exit_code == 0
    before = sorted(empty_records.rglob("*.yaml"))
    r = invoke(empty_records, *args)
    assert r.exit_code == 2, r.output
    line = next(line for line in r.stderr.splitlines() if f": {option}: " in line)
    assert message in line, r.stderr
    assert "nothing written" in r.stderr
    assert sorted(empty_records.rglob("*.yaml")) == before


@pytest.mark.parametrize("args", [
    ["new", "platform", "P", "--gpu", "G", "--count", "many", "--compute-capability", "12.0"],
    ["new", "platform", "P", "--count", "1", "--compute-capability", "12.0"],
    ["new", "platform", "--gpu", "G", "--count", "1", "--compute-capability", "12.0"],
    ["new", "campaign", "C", "--model", "M", "--platform", "p", "--direction", "up"],
    ["new", "campaign", "C", "--platform", "p"],
    ["new", "stack", "  ", "--component", "cuda=13.0"],
])
def test_usage_errors_exit_2(empty_records: Path, args):
    assert invoke(empty_records, *args).exit_code == 2


def test_library_functions_validate_without_writing():
    p = new_platform("H200 x2", gpu="NVIDIA H200", gpu_count=2, compute_capability="9.0", nvlink=True)
    assert (p.id, p.arch, p.nvlink, p.interconnect) == ("h200-x2", "sm_90", True, None)
    with pytest.raises(InvalidRecords) as exc:
        new_platform("P", gpu="", gpu_count=0, compute_capability="x")
    assert {pr.field for pr in exc.value.problems} == {"--gpu", "--count", "--compute-capability"}
    kg = load_graph_from({})
    with pytest.raises(InvalidRecords) as exc:
        new_campaign(kg, "C", model="M", platform="nowhere")
    assert [pr.field for pr in exc.value.problems] == ["--platform"]
    assert "none yet" in exc.value.problems[0].message
    with pytest.raises(InvalidRecords):
        new_stack(kg, "S")


def load_graph_from(records: dict) -> KnowledgeGraph:
    from kb.store import RecordSet

    return build_graph(RecordSet(records=records))


def _chart_of(site: Path, page: str):
    soup = BeautifulSoup((site / page).read_text(encoding="utf-8"), "html.parser")
    article = soup.select_one("article.md-content__inner")
    svg = article.select_one("svg.kb-chart")
    assert svg is not None
    return article, svg


def test_a_new_user_starts_a_campaign_from_an_empty_records_folder(empty_records: Path, tmp_path: Path):
    """new platform → new stack → new campaign → kb log → kb roots → kb build: no baseline yet."""
    root = empty_records
    for args in (PLATFORM, STACK, CAMPAIGN):
        r = invoke(root, *args)
        assert r.exit_code == 0, r.output
    r = invoke(root, "log", "-t", "Baseline TP8", "-o", "baseline", "-a", "tp 8, defaults", "--stack", "cuda-12.8",
               "-m", "output_throughput=82", "--date", "2026-03-02", "--no-interactive")
    assert r.exit_code == 0, r.output
    attempt = load_graph(root).get("2026-03-02-baseline-tp8")
    assert attempt.campaign == "llama-70b-on-rtx-pro" and attempt.platform == "8x-rtx-pro-6000"
    r = invoke(root, "log", "-t", "EAGLE-3", "-o", "failed", "-a", "speculative decoding", "--stack", "cuda-12.8",
               "--error", "CUDA error: no kernel image is available", "--date", "2026-03-03", "--no-interactive")
    assert r.exit_code == 0, r.output
    check_ok(root)
    r = invoke(root, "roots", "--json")
    assert r.exit_code == 0, r.output
    assert invoke(root, "why", "2026-03-03-eagle-3").exit_code == 0

    site = build_site(root, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True)
    for page in ("index.html", "campaigns/llama-70b-on-rtx-pro/index.html"):
        article, svg = _chart_of(site, page)
        text = " ".join(article.get_text(" ").split())
        assert "Output throughput (higher is better): no baseline yet, target 100 tok/s, best 82 tok/s" in text
        assert "vs campaign baseline" not in text
        assert svg.select_one("line.kb-baseline") is None  # no baseline line
        assert svg.select_one("line.kb-target") is not None
        assert "campaign baseline" not in svg.get_text()
        assert len(svg.select("g.kb-point")) == 2  # the baseline run and the failed attempt
    index = BeautifulSoup((site / "campaigns" / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert "Output throughput: no baseline yet" in index.get_text()

    # once the baseline is measured and set, the chart draws it and the table compares with it
    camp = root / "campaigns" / "llama-70b-on-rtx-pro.yaml"
    camp.write_text(camp.read_text(encoding="utf-8") + "baseline: 82 tok/s\n", encoding="utf-8")
    site = build_site(root, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site2"), strict=True)
    article, svg = _chart_of(site, "index.html")
    text = " ".join(article.get_text(" ").split())
    assert "no baseline yet" not in text
    assert "baseline 82 tok/s, target 100 tok/s, best 82 tok/s (+0.0 %" in text
    assert "vs campaign baseline" in text
    assert svg.select_one("line.kb-baseline") is not None


def test_import_drafts_into_a_campaign_without_a_baseline(campaign_copy: Path):
    camp = campaign_copy / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    camp.write_text("".join(line for line in camp.read_text(encoding="utf-8").splitlines(keepends=True)
                            if not line.startswith("baseline: ")), encoding="utf-8")
    assert load_graph(campaign_copy).get("kimi-k25-eagle3-blackwell").baseline is None
    r = invoke(campaign_copy, "import", str(Path(__file__).parent / "fixtures" / "logs" / "notebook.md"))
    assert r.exit_code == 0, r.output
    check_ok(campaign_copy)
