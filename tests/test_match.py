"""`kb match`: which blockers an error text matches, and which earlier attempts hit it; read-only."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import CAMPAIGN_RECORDS
from test_roots_blind import FILES, MARLIN_WARNING

from kb.cli import cli

NCCL_TREE = "2026-02-23-nccl-tree"


def kb(*args: str, records: Path = CAMPAIGN_RECORDS, stdin: str | None = None):
    return CliRunner().invoke(cli, ["--records", str(records), "match", *args], input=stdin)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_an_exact_signature_names_the_blocker_its_fix_and_who_hit_it():
    r = kb("--json", "Traceback (most recent call last):\n  File x\nKeyError: 12")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["headline"] == "KeyError: 12"
    assert [(m["blocker"], m["source"], m["specific"], m["attempts"]) for m in data["matches"]] == [
        ("torch-symm-mem-no-capability-12", "campaign", True, ["2026-02-23-torch-symm-mem"])]
    assert data["matches"][0]["fix"] == ("no fix of its own; its cause sm120-unsupported-by-cuda-12.8-stack is fixed by "
                                         "cuda>=13.0 (credited, not verified: flashinfer, nccl, sgl-kernel, sglang, torch, triton changed "
                                         "with cuda in 2026-02-26-upgrade-to-cuda-13)")
    assert data["same_error"] == ["2026-02-23-torch-symm-mem"]


def test_the_text_comes_from_an_argument_a_file_or_standard_input(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("step 1\nstep 2\nRuntimeError: No supported CUDA architectures found for major versions [9, 10]\n")
    by_arg = kb(log.read_text())
    by_file = kb("--file", str(log))
    by_stdin = kb(stdin=log.read_text())
    by_dash = kb("-", stdin=log.read_text())
    assert by_arg.exit_code == by_file.exit_code == by_stdin.exit_code == by_dash.exit_code == 0
    assert by_arg.stdout == by_file.stdout == by_stdin.stdout == by_dash.stdout
    lines = by_arg.stdout.splitlines()
    assert lines[0] == "error: RuntimeError: No supported CUDA architectures found for major versions [9, 10]"
    assert lines[1] == ("matches: flashinfer-allreduce-fusion-jit-no-sm120: FlashInfer allreduce-fusion JIT finds no "
                        "supported architecture on SM120")
    assert "   hit before by: 2026-02-23-flashinfer-allreduce-fusion" in lines


def test_a_generic_signature_is_only_a_possible_match():
    r = kb("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1] == ("possible match (a short or generic signature): ep-a2a-gpu-memory-exhausted: "
                                        "Expert parallelism with the FlashInfer A2A backend exhausts GPU memory")


def test_no_match_says_so_and_an_empty_text_is_refused():
    r = kb("ValueError: something nobody recorded")
    assert r.exit_code == 0
    assert r.stdout.splitlines() == ["error: ValueError: something nobody recorded",
                                     "no blocker of the campaign or its catalogs matches this error"]
    empty = kb("   ")
    assert empty.exit_code != 0 and "the error text is empty" in empty.output
    both = kb("x", "--file", str(CAMPAIGN_RECORDS / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"))
    assert both.exit_code != 0 and "not both" in both.output


def test_a_catalog_record_of_the_same_failure_and_nothing_written(write_tree):
    root = write_tree(FILES)
    before = snapshot(root)
    data = json.loads(kb("--json", MARLIN_WARNING, records=root).stdout)
    catalog = [m for m in data["matches"] if m["source"] == "catalog blackwell"]
    assert [m["blocker"] for m in catalog] == ["vllm-marlin-fp4-fallback-on-sm120"]
    assert snapshot(root) == before  # read-only (the store's cache lives outside the records folder)
