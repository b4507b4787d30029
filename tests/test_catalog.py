"""Catalogs (issue 12): a campaign lists them, queries and signature matching span them, ids stay
unique, kb roots --catalog ranks their root causes; the shipped Blackwell catalog loads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.catalog import SHIPPED, resolve_catalog, shipped_catalogs
from kb.cli import cli
from kb.pipeline import load, load_graph
from kb.queries import catalog_roots, match_signatures, unblocks

CASE = Path(__file__).resolve().parent / "fixtures" / "cases" / "truth" / "contradiction-success-where-blocker-applies"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The contradiction case's records, its campaign using the shipped Blackwell catalog."""
    dest = tmp_path / "records"
    shutil.copytree(CASE / "records", dest)
    camp = dest / "campaigns" / "c.yaml"
    camp.write_text(camp.read_text(encoding="utf-8") + "catalogs: [blackwell]\n", encoding="utf-8")
    return dest


def run(root: Path, *args: str):
    return CliRunner().invoke(cli, ["--records", str(root), *args])


def test_the_shipped_blackwell_catalog_loads_on_its_own():
    assert "blackwell" in shipped_catalogs()
    loaded = load(SHIPPED / "blackwell")
    assert loaded.problems == []
    assert len(loaded.records.records) >= 30


def test_a_campaign_s_catalog_joins_its_records(root):
    kg = load_graph(root)
    assert kg.records.catalog_of["flashinfer-allreduce-fusion-sm12x-gate"] == "blackwell"
    assert "fi-gate" not in kg.records.catalog_of
    # signature matching spans both: the campaign's own blocker and the catalog's
    assert match_signatures(kg, "RuntimeError: No supported CUDA architectures found for major versions [9, 10]") == [
        "fi-gate", "flashinfer-allreduce-fusion-sm12x-gate"]


def test_unblocks_over_the_catalog_keeps_the_fusion_gate_and_names_the_nvcc_co_requirement(root):
    kg = load_graph(root)
    res = unblocks(kg, {"cuda": "13.0"}, from_stack="cu128")
    still = {s.id: s.missing for s in res.still_blocked + res.other_still_blocked}
    assert still["flashinfer-allreduce-fusion-sm12x-gate"] == ["flashinfer>=0.6.17"]
    res = unblocks(kg, {"flashinfer": "0.6.17"}, from_stack="cu128")
    assert {i["id"]: i["missing"] for i in res.introduced}["flashinfer-jit-sm12x-needs-cuda-12.9"] == ["cuda>=12.9"]


def test_check_names_the_catalog_record_that_disagrees_with_a_claim(root):
    r = run(root, "check")
    assert r.exit_code == 0
    # one warning per attempt and kind: the campaign's own gate in words, the catalog's record named with it
    [line] = [x for x in r.stdout.splitlines() if "2026-02-27-fusion-cu130.yaml" in x]
    assert line.startswith("records/attempts/2026-02-27-fusion-cu130.yaml:7: outcome: warning: outcome is improved on "
                           "stack cu130-fi064, where blocker fi-gate still stands (needs flashinfer>=0.6.17)")
    assert f"; and 1 more like it: about flashinfer-allreduce-fusion-sm12x-gate [explained by: kb --records {root} why" in line
    why = run(root, "why", "2026-02-27-fusion-cu130").stdout
    assert "flashinfer-allreduce-fusion-sm12x-gate" in why


def _referring(rid: str) -> int:
    """How many records of the shipped Blackwell catalog name ``rid`` in caused_by."""
    import yaml

    return sum(rid in (yaml.safe_load(p.read_text(encoding="utf-8")).get("caused_by") or [])
               for p in (SHIPPED / "blackwell" / "blockers").glob("*.yaml"))


def test_an_id_in_both_the_records_and_a_catalog_is_a_located_clash(root):
    (root / "blockers" / "pcie-only-topology.yaml").write_text("title: mine\n", encoding="utf-8")
    r = run(root, "check")
    assert r.exit_code == 1
    # located at the campaign's own record, the one a person can rename (the catalog is read-only)
    assert (f"records/blockers/pcie-only-topology.yaml:1: id: id 'pcie-only-topology' is also the id of a record of "
            f"catalog blackwell ({SHIPPED / 'blackwell' / 'blockers' / 'pcie-only-topology.yaml'}); ids are unique across "
            "a campaign's records and its catalogs, and catalogs are read-only: rename this record (the catalog's "
            f"pcie-only-topology is not loaded; {_referring('pcie-only-topology')} records of catalog blackwell refer "
            "to it and are checked against it once it loads)") in r.stdout


def test_a_clash_is_one_problem_not_one_per_catalog_record_that_refers_to_the_id(root):
    """The catalog's root cause sm12x-hardware-gap is not loaded when an attempt takes its id: its
    catalog's blockers that name it in caused_by used to be reported one by one ("is an attempt,
    but caused_by must name a blocker"), in read-only files nobody can fix."""
    attempt = next((root / "attempts").glob("*.yaml"))
    (root / "attempts" / "sm12x-hardware-gap.yaml").write_text(attempt.read_text(encoding="utf-8"), encoding="utf-8")
    r = run(root, "check")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        f"records/attempts/sm12x-hardware-gap.yaml:1: id: id 'sm12x-hardware-gap' is also the id of a record of catalog "
        f"blackwell ({SHIPPED / 'blackwell' / 'blockers' / 'sm12x-hardware-gap.yaml'}); ids are unique across a "
        "campaign's records and its catalogs, and catalogs are read-only: rename this record (the catalog's "
        f"sm12x-hardware-gap is not loaded; {_referring('sm12x-hardware-gap')} records of catalog blackwell refer to it "
        "and are checked against it once it loads)"]
    # the campaign's own records are still checked against the record that holds the id
    blocked = next(p for p in (root / "attempts").glob("*.yaml") if "blocked_by" in p.read_text(encoding="utf-8"))
    text = blocked.read_text(encoding="utf-8")
    blocked.write_text(text.replace("blocked_by: [", "blocked_by: [sm12x-hardware-gap, ", 1), encoding="utf-8")
    assert "blocked_by: [sm12x-hardware-gap, " in blocked.read_text(encoding="utf-8")
    r = run(root, "check")
    assert "'sm12x-hardware-gap' is an attempt, but blocked_by must name a blocker" in r.stdout
    assert len(r.stdout.splitlines()) == 2


def test_an_id_in_two_catalogs_is_located_at_the_later_catalog_s_record(root, tmp_path):
    team = tmp_path / "team"
    (team / "blockers").mkdir(parents=True)
    (team / "blockers" / "flag-misuse.yaml").write_text("title: ours\n", encoding="utf-8")
    (team / "blockers" / "our-own.yaml").write_text("title: ours too\ncaused_by: [flag-misuse]\n", encoding="utf-8")
    camp = root / "campaigns" / "c.yaml"
    camp.write_text(camp.read_text(encoding="utf-8").replace("[blackwell]", "[blackwell, ../team]"), encoding="utf-8")
    r = run(root, "check")
    assert r.exit_code == 1
    assert (f"{team / 'blockers' / 'flag-misuse.yaml'}:1: id: id 'flag-misuse' is also used in catalog blackwell "
            f"({SHIPPED / 'blackwell' / 'blockers' / 'flag-misuse.yaml'}); ids are unique across a campaign's records and "
            "its catalogs: rename one (this record of catalog ../team is not loaded; 1 record of catalog ../team "
            "refers to it and is checked against it once it loads)") in r.stdout
    assert len(r.stdout.splitlines()) == 1  # the clash only: the team's other record loads
    assert load(root).records.catalog_of["our-own"] == "../team"


def test_a_catalog_that_is_a_file_or_missing_says_so(root, tmp_path):
    (tmp_path / "afile").write_text("not a folder\n", encoding="utf-8")
    camp = root / "campaigns" / "c.yaml"
    camp.write_text(camp.read_text(encoding="utf-8").replace("[blackwell]", "[blackwell, ../afile, ../gone]"),
                    encoding="utf-8")
    r = run(root, "check")
    assert r.exit_code == 1
    assert (f"records/campaigns/c.yaml:6: catalogs.1: catalog '../afile' is not a folder ({tmp_path / 'afile'} is a "
            "file); a catalog is a folder holding blockers/ (and stacks/, platforms/) and a CATALOG.md: name that "
            "folder, or a shipped catalog (blackwell)") in r.stdout
    assert (f"records/campaigns/c.yaml:6: catalogs.2: unknown catalog '../gone': no catalog of that name ships with kb "
            f"(shipped: blackwell) and no folder {tmp_path / 'gone'}; fix the name or the path") in r.stdout


def test_roots_catalog_refuses_an_unknown_catalog_name(root):
    r = run(root, "roots", "--catalog", "blackwel")
    assert r.exit_code == 2
    assert "unknown catalog 'blackwel': the catalogs in use are blackwell" in r.output


def test_an_unknown_catalog_is_a_located_problem(root):
    camp = root / "campaigns" / "c.yaml"
    camp.write_text(camp.read_text(encoding="utf-8").replace("[blackwell]", "[blackwel]"), encoding="utf-8")
    r = run(root, "check")
    assert r.exit_code == 1
    assert ("records/campaigns/c.yaml:6: catalogs.0: unknown catalog 'blackwel': no catalog of that name ships with "
            f"kb (shipped: blackwell) and no folder {root.resolve() / 'blackwel'}; fix the name or the path") in r.stdout


def test_a_catalog_by_path_and_not_inside_the_records(root, tmp_path):
    team = tmp_path / "team-catalog" / "blockers"
    team.mkdir(parents=True)
    (team / "our-bug.yaml").write_text("title: our bug\nsignatures: ['our very own error']\n", encoding="utf-8")
    camp = root / "campaigns" / "c.yaml"
    camp.write_text(camp.read_text(encoding="utf-8").replace("[blackwell]", "[blackwell, ../team-catalog]"),
                    encoding="utf-8")
    assert resolve_catalog("../team-catalog", root) == root / "../team-catalog"
    kg = load_graph(root)
    assert kg.records.catalog_of["our-bug"] == "../team-catalog"
    (root / "inside" / "blockers").mkdir(parents=True)
    camp.write_text(camp.read_text(encoding="utf-8").replace("../team-catalog", "inside"), encoding="utf-8")
    problems = load(root).problems
    assert any("catalog 'inside' lies inside the records folder" in p.message for p in problems)


def test_roots_catalog_ranks_the_catalog_s_root_causes_by_the_blockers_each_explains(root):
    ranked = catalog_roots(load_graph(root))
    assert ranked[0].id == "arch-allowlist-omits-sm12x"
    assert [len(r.explains) for r in ranked] == sorted((len(r.explains) for r in ranked), reverse=True)
    assert "flashinfer-allreduce-fusion-sm12x-gate" in ranked[0].explains
    r = run(root, "roots", "--catalog", "--json")
    assert r.exit_code == 0
    assert [x["id"] for x in json.loads(r.stdout)] == [x.id for x in ranked]
    assert run(root, "roots", "--catalog").stdout.splitlines()[0].startswith(
        "1. arch-allowlist-omits-sm12x  (explains ")


def test_a_catalog_blocker_page_says_where_it_comes_from(root):
    from kb.site.pages import render_site

    page = render_site(load_graph(root))["blockers/flashinfer-allreduce-fusion-sm12x-gate.md"]
    assert '!!! info "From the catalog blackwell"' in page
    assert "its facts were checked on 2026&#45;12&#45;02" in page


ERROR_LINES = {
    "flashinfer-allreduce-fusion-sm12x-gate":
        "RuntimeError: No supported CUDA architectures found for major versions [9, 10]",
    "sglang-symm-mem-size-table-keyerror-12": "    self.max_size = SIZES[self.device_capability][ws]\nKeyError: 12",
    "flashinfer-jit-sm12x-needs-cuda-12.9": "RuntimeError: SM 12.x requires CUDA >= 12.9",
    "sgl-kernel-preloads-libcudart-12-on-cuda-13":
        "[sgl_kernel] CRITICAL: Could not load any common_ops library!",
    "flash-attn2-arch-check-rejects-sm120": "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    "nccl-nvls-multicast-unavailable-on-pcie": "NCCL WARN NVLS multicast support is not available on dev 0",
    "flashmla-kernels-sm90-sm100-only":
        "RuntimeError: Sparse Attention Forward Kernel is only supported on SM90a and SM100f architectures",
    "sgl-kernel-fp8-blockwise-grouped-mm-no-sm120":
        "RuntimeError: No implemented fp8_blockwise_scaled_grouped_mm for current compute capability: 120",
    "flashinfer-fp4-cvt-needs-arch-suffix":
        "ptxas error   : Instruction 'cvt with .e2m1x2' not supported on .target 'sm_120'",
    "deepgemm-sm100-only-kernels-on-sm12x": "AssertionError: DeepGEMM MegaMoE requires SM100 GPUs",
}


@pytest.mark.parametrize("blocker", sorted(ERROR_LINES))
def test_kb_log_error_file_names_the_catalog_record(root, tmp_path, blocker):
    err = tmp_path / "error.txt"
    err.write_text(f"Traceback (most recent call last):\n  File \"x.py\", line 1\n{ERROR_LINES[blocker]}\n", encoding="utf-8")
    r = run(root, "log", "-t", "a run", "-o", "failed", "-a", "x", "-c", "c", "-s", "cu128", "--date", "2026-03-01",
            "--error-file", str(err), "--dry-run", "--no-interactive")
    assert r.exit_code == 0, r.output
    assert f"kb log: error text matches {blocker}; " in r.stderr


def test_link_matches_links_only_specific_matches(root):
    args = ["log", "-t", "a run", "-o", "failed", "-a", "x", "-c", "c", "-s", "cu128", "--date", "2026-03-01",
            "--link-matches", "--dry-run", "--no-interactive"]
    # the campaign's own blocker and the catalog's match by the same signature: the own one is linked
    r = run(root, *args, "--error", "RuntimeError: No supported CUDA architectures found for major versions [9, 10]")
    assert "blocked_by:\n- fi-gate\n" in r.stdout
    assert "error text matches flashinfer-allreduce-fusion-sm12x-gate; " in r.stderr
    assert ("(not linked: too generic, or the campaign's own blocker matches the same text; "
            "add -b flashinfer-allreduce-fusion-sm12x-gate if it is this one)") in r.stderr
    # a short signature is linked when it is the only match, not beside a specific one: on a stack
    # with SGLang and sgl-kernel (on cu128, which has neither, neither catalog record can apply)
    r = run(root, *args, "--error", "KeyError: 12")
    assert "blocked_by" not in r.stdout and "it does not apply on stack cu128 (the stack has no sglang)" in r.stderr
    (root / "stacks" / "cu130-sgl.yaml").write_text(
        'title: with sglang\ncomponents: {cuda: "13.0.1", torch: "2.9.0", sglang: "0.5.6", sgl-kernel: "0.3.20"}\n',
        encoding="utf-8")
    sgl = [a if a != "cu128" else "cu130-sgl" for a in args]
    r = run(root, *sgl, "--error", "KeyError: 12")
    assert "blocked_by:\n- sglang-symm-mem-size-table-keyerror-12\n" in r.stdout
    r = run(root, *sgl, "--error", "KeyError: 12\n[sgl_kernel] CRITICAL: Could not load any common_ops library!")
    assert "blocked_by:\n- sgl-kernel-preloads-libcudart-12-on-cuda-13\n" in r.stdout


def test_the_kb_plugin_option_adds_a_catalog_to_the_site(tmp_path):
    from conftest import CAMPAIGN_RECORDS, ROOT

    from kb.site.build import build_site

    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace(
        "      records: records\n", "      records: records\n      catalogs: [blackwell]\n"), encoding="utf-8")
    (tmp_path / "docs").mkdir()
    site = build_site(CAMPAIGN_RECORDS, config_file=str(cfg), site_dir=str(tmp_path / "site"))
    page = (site / "blockers" / "flashinfer-allreduce-fusion-sm12x-gate" / "index.html").read_text(encoding="utf-8")
    assert "From the catalog blackwell" in page


def test_the_site_publishes_only_the_catalog_blockers_bearing_on_the_campaign(root, tmp_path):
    from kb.queries.bearing import bearing_records
    from kb.site.build import build_site
    from kb.site.pages import render_site

    kg = load_graph(root)
    bearing = bearing_records(kg)
    # matched by the campaign's error, or a root cause of one; one that merely applies to its
    # stacks is on the catalog's page only
    assert {"flashinfer-allreduce-fusion-sm12x-gate", "arch-allowlist-omits-sm12x"} <= bearing
    assert "toolchain-too-old-for-sm12x" not in bearing and "flashinfer-jit-sm12x-needs-cuda-12.9" not in bearing
    # the stacks have no bitsandbytes, flash-attn or Triton; no error names them
    assert not bearing & {"bitsandbytes-no-cuda128-binary", "flash-attn2-arch-check-rejects-sm120",
                          "triton-bundled-ptxas-rejects-sm120"}
    assert len(bearing) < len(kg.records.catalog_of)
    pages = render_site(kg)
    assert "blockers/flashinfer-allreduce-fusion-sm12x-gate.md" in pages
    # wherever a catalog record with a page is named, it is marked as from the catalog
    assert ("[An architecture allow&#45;list or capability&#45;keyed table leaves out 12.x (catalog blackwell)]"
            "(arch-allowlist-omits-sm12x.md)") in pages["blockers/index.md"]
    assert "blockers/bitsandbytes-no-cuda128-binary.md" not in pages
    # a page naming a catalog blocker without a page links to its upstream thread instead
    root_page = pages["blockers/arch-allowlist-omits-sm12x.md"]
    assert ("FlashAttention 2 builds whose device check only accepts SM8x and SM90 reject SM120 (catalog blackwell)]"
            "(https://github.com/Dao-AILab/flash-attention/issues/1540)") in root_page.replace("&#45;", "-")
    site = build_site(root, site_dir=str(tmp_path / "site"), strict=True)
    index = json.loads((site / "records.json").read_text(encoding="utf-8"))
    ids = {r["id"] for r in index["records"]}
    assert "flashinfer-allreduce-fusion-sm12x-gate" in ids and "bitsandbytes-no-cuda128-binary" not in ids
    assert not (site / "blockers" / "bitsandbytes-no-cuda128-binary.yaml").exists()
    assert (site / "blockers" / "flashinfer-allreduce-fusion-sm12x-gate.yaml").exists()


def test_import_names_the_catalog_blocker_its_fix_and_what_the_fix_needs(root):
    from conftest import ROOT

    log = ROOT / "tests" / "fixtures" / "logs" / "notebook.md"
    r = run(root, "import", str(log), "--campaign", "c", "--dry-run")
    assert r.exit_code == 0, r.output
    # KeyError: 12 is only the catalog's: linked, and said with its fix
    assert ("known blocker: 2026-02-23-torch-symmetric-memory matches sglang-symm-mem-size-table-keyerror-12 "
            "(catalog blackwell): no fix of its own") in r.stdout
    # the fusion error matches the campaign's own blocker and the catalog's: the own one is linked,
    # the catalog's named with its fix and the nvcc co-requirement of that fix
    row = next(line for line in r.stdout.splitlines() if "2026-02-23-flashinfer-allreduce-fusion " in line)
    assert " fi-gate " in row and "flashinfer-allreduce-fusion-sm12x-gate" not in row
    assert ("known blocker: 2026-02-23-flashinfer-allreduce-fusion matches flashinfer-allreduce-fusion-sm12x-gate "
            "(catalog blackwell): fixed by flashinfer>=0.6.17, cuda>=12.9") in r.stdout
    data = json.loads(run(root, "import", str(log), "--campaign", "c", "--dry-run", "--json").stdout)
    drafts = {d["id"]: d for f in data["files"] for d in f["drafts"]}
    assert drafts["2026-02-23-torch-symmetric-memory"]["blocked_by"] == ["sglang-symm-mem-size-table-keyerror-12"]
    assert [k["id"] for k in drafts["2026-02-23-flashinfer-allreduce-fusion"]["known_blockers"]] == [
        "flashinfer-allreduce-fusion-sm12x-gate"]
    notes = drafts["2026-02-23-flashinfer-allreduce-fusion"]["record"]["notes"]
    assert "Possible match: blocker `flashinfer-allreduce-fusion-sm12x-gate`" in notes
    assert "also matches a blocker of the campaign's own, which was linked instead" in notes


def test_a_literal_signature_matches_only_whole(root):
    kg = load_graph(root)
    # "KeyError: 12" is not in "KeyError: 120" (another table, another capability)
    assert match_signatures(kg, "KeyError: 120") == []
    assert match_signatures(kg, "raise KeyError: 12\n") == ["sglang-symm-mem-size-table-keyerror-12"]
    assert match_signatures(kg, "OSError: libcudart.so.125: cannot open shared object file") == []


@pytest.mark.parametrize("line", [
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda error",
    "RuntimeError: CUDA error: invalid device function",
    "KeyError: 120",
])
def test_generic_cuda_errors_are_never_linked(root, line):
    from kb.queries.signatures import specific_matches

    oom = root / "blockers" / "oom.yaml"
    oom.write_text("title: out of memory\nsignatures: ['CUDA out of memory', 'no kernel image is available for "
                   "execution on the device', 'illegal memory access']\n", encoding="utf-8")
    kg = load_graph(root)
    assert specific_matches(kg, line) == []
    r = run(root, "log", "-t", "a run", "-o", "failed", "-a", "x", "-c", "c", "-s", "cu128", "--date", "2026-03-01",
            "--link-matches", "--dry-run", "--no-interactive", "--error", line)
    assert r.exit_code == 0, r.output
    assert "blocked_by" not in r.stdout


def test_the_campaign_s_own_blocker_wins_a_shared_short_signature(root):
    from kb.queries.signatures import specific_matches

    (root / "blockers" / "symm.yaml").write_text("title: symm-mem table\nsignatures: ['KeyError: 12']\n",
                                                 encoding="utf-8")
    kg = load_graph(root)
    assert match_signatures(kg, "KeyError: 12") == ["sglang-symm-mem-size-table-keyerror-12", "symm"]
    assert specific_matches(kg, "KeyError: 12") == ["symm"]
    # with the traceback line the catalog record matches by a long signature of its own: it is the
    # specific one, and the own blocker's short signature alone no longer decides
    assert specific_matches(kg, "TORCH_SYMM_MEM_ALL_REDUCE_MAX_SIZES[self.device_capability]\nKeyError: 12") == [
        "sglang-symm-mem-size-table-keyerror-12"]


def test_kb_s_writers_refuse_to_write_into_a_catalog(root, tmp_path):
    from kb.catalog import SHIPPED
    from kb.store.write import SHIPPED_CATALOGS

    assert SHIPPED == SHIPPED_CATALOGS
    before = sorted(p.name for p in (SHIPPED / "blackwell" / "blockers").iterdir())
    r = CliRunner().invoke(cli, ["--records", str(SHIPPED / "blackwell"), "new", "blocker", "hello"])
    assert r.exit_code == 1
    assert ("not written: it is a catalog shipped with kb (" + str(SHIPPED / "blackwell") + "), and catalogs are "
            "read-only to kb's writers") in r.output
    assert sorted(p.name for p in (SHIPPED / "blackwell" / "blockers").iterdir()) == before
    # a team's catalog: the folder holding CATALOG.md
    team = tmp_path / "team"
    shutil.copytree(root, team)  # records that would be written to, were the folder not a catalog
    (team / "CATALOG.md").write_text("# our blockers\n", encoding="utf-8")
    for args in (["new", "blocker", "hello"], ["new", "stack", "s", "--component", "cuda=13.0"],
                 ["log", "-t", "a run", "-o", "failed", "-a", "x", "-c", "c", "--date", "2026-03-01",
                  "-e", "KeyError: 12", "--no-interactive"]):
        r = CliRunner().invoke(cli, ["--records", str(team), *args])
        assert r.exit_code == 1, r.output
        assert f"{team}: not written: it is a catalog ({team / 'CATALOG.md'} marks it)" in r.output
    assert sorted(p.relative_to(team) for p in team.rglob("*.yaml")) == sorted(
        p.relative_to(root) for p in root.rglob("*.yaml"))
    # the campaign's records beside it are written as ever, their blocker's id free of the catalog's
    r = run(root, "new", "blocker", "PCIe only topology")
    assert r.exit_code == 0, r.output
    assert (root / "blockers" / "pcie-only-topology-2.yaml").is_file()


def test_a_catalog_in_an_installed_package_s_data_folder(root, tmp_path, monkeypatch):
    from kb.catalog import catalog_places

    pkg = tmp_path / "site" / "acme_kb"
    (pkg / "catalogs" / "team" / "blockers").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('a catalog is found without importing its package')\n",
                                     encoding="utf-8")
    (pkg / "catalogs" / "team" / "blockers" / "acme-bug.yaml").write_text(
        "title: acme bug\nsignatures: ['acme kernel refused sm_120']\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert resolve_catalog("acme_kb:catalogs/team", root) == pkg / "catalogs" / "team"
    assert resolve_catalog("kb:catalogs/blackwell", root) == SHIPPED / "blackwell"
    assert resolve_catalog("acme_kb:catalogs/none", root) is None
    assert catalog_places("C:/x", root) == [root / "C:/x"]  # a drive letter is no package
    camp = root / "campaigns" / "c.yaml"
    camp.write_text(camp.read_text(encoding="utf-8").replace(
        "[blackwell]", "[blackwell, acme_kb:catalogs/team, kb:catalogs/blackwell]"), encoding="utf-8")
    loaded = load(root)
    assert loaded.problems == []  # the shipped catalog named twice is read once
    assert loaded.records.catalog_of["acme-bug"] == "acme_kb:catalogs/team"
    assert loaded.records.catalog_of["pcie-only-topology"] == "blackwell"


def test_import_links_upstream_error_lines_to_the_catalog_and_leaves_generic_ones(root, tmp_path):
    log = tmp_path / "notebook.md"
    log.write_text(
        "# notebook\n\n## 2026-03-02 — kernels\n\n| Approach | Outcome | Output tok/s | Error / cause |\n|---|---|---:|---|\n"
        "| FP8 blockwise grouped GEMM | failed | — | `RuntimeError: No implemented fp8_blockwise_scaled_grouped_mm for "
        "current compute capability: 120` |\n"
        "| Bigger batch | failed | — | `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB` |\n"
        "| FA2 backend | failed | — | `RuntimeError: CUDA error: no kernel image is available for execution on the "
        "device` |\n", encoding="utf-8")
    (root / "blockers" / "oom.yaml").write_text("title: out of memory\nsignatures: ['CUDA out of memory']\n",
                                                encoding="utf-8")
    data = json.loads(run(root, "import", str(log), "--campaign", "c", "--dry-run", "--json").stdout)
    drafts = {d["id"]: d for f in data["files"] for d in f["drafts"]}
    assert drafts["2026-03-02-fp8-blockwise-grouped-gemm"]["blocked_by"] == ["sgl-kernel-fp8-blockwise-grouped-mm-no-sm120"]
    assert [k["id"] for k in drafts["2026-03-02-fp8-blockwise-grouped-gemm"]["known_blockers"]] == [
        "sgl-kernel-fp8-blockwise-grouped-mm-no-sm120"]
    assert drafts["2026-03-02-bigger-batch"]["blocked_by"] == []
    assert "Possible match: blocker `oom`" in drafts["2026-03-02-bigger-batch"]["record"]["notes"]
    assert drafts["2026-03-02-fa2-backend"]["blocked_by"] == []


def test_capture_refuses_to_write_a_record_under_a_catalog_s_id(root):
    r = run(root, "capture", "--write", "pcie-only-topology", "--timeout", "0.5")
    assert r.exit_code == 2, r.output
    assert ("--write pcie-only-topology: that id is already a blocker of catalog blackwell; ids are unique across "
            "a campaign's records and its catalogs: pick another id") in r.output
    assert not (root / "stacks" / "pcie-only-topology.yaml").exists()


def test_kb_log_refuses_a_catalog_before_asking_anything(root, tmp_path):
    """On a terminal kb log asks for what is missing; into a catalog it refuses first (it used
    to ask every question, then refuse to write the answers)."""
    team = tmp_path / "team"
    shutil.copytree(root, team)
    (team / "CATALOG.md").write_text("# our blockers\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["--records", str(team), "log", "--interactive"], input="a title\n" * 20)
    assert r.exit_code == 1, r.output
    assert r.output.startswith(f"kb: {team}: not written: it is a catalog ({team / 'CATALOG.md'} marks it)")
    assert "approach (what was tried)" not in r.output and "title:" not in r.output  # no question asked
    # a dry run only prints: it is not refused
    r = CliRunner().invoke(cli, ["--records", str(team), "log", "-t", "a run", "-o", "failed", "-a", "x", "-c", "c",
                                 "--date", "2026-03-01", "-e", "boom", "--no-interactive", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "title: a run" in r.output
