"""What a helper broke in the new commands, each as a test: a whitespace-only error, a catalog
signature matched on a platform it does not apply to, a campaign root shown as a catalog row with
its own fix, an unknown campaign, kb ask's check and --help, a regex signature on a huge one-line
log, a UTF-16 or binary error file, a huge headline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kb.cli import cli

H100 = {"title": "8x H100", "gpu": "H100", "gpu_count": 8, "compute_capability": "9.0", "interconnect": "NVLink"}
RTX = {"title": "8x RTX PRO 6000", "gpu": "RTX PRO 6000", "gpu_count": 8, "compute_capability": "12.0",
       "interconnect": "PCIe Gen5"}


def tree(platform: dict[str, Any], attempt: dict[str, Any], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "platforms/p.yaml": platform,
        "stacks/s.yaml": {"title": "s", "components": {"cuda": "12.8.1", "torch": "2.10.0", "sglang": "0.5.8"}},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "p", "stack": "s", "catalogs": ["blackwell"],
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
        "attempts/2026-03-02-run.yaml": {"title": "the run", "date": "2026-03-02", "campaign": "c", "approach": "a",
                                         "stack": "s", **attempt},
        **(extra or {}),
    }


def kb(root: Path, *args: str, stdin: str | bytes | None = None) -> Any:
    return CliRunner().invoke(cli, ["--records", str(root), *args], input=stdin)


def test_why_of_an_attempt_whose_error_is_only_whitespace(write_tree):
    root = write_tree(tree(RTX, {"outcome": "failed", "error": "   \n  ", "blocked_by": ["b"]},
                           {"blockers/b.yaml": {"title": "b"}}))
    r = kb(root, "why", "2026-03-02-run")
    assert r.exit_code == 0, r.output
    assert "error:" not in r.stdout and "→ b [root cause]: b" in r.stdout


def test_a_catalog_signature_links_only_where_the_catalog_blocker_applies(write_tree):
    failed = {"outcome": "failed", "error": "KeyError: 12"}
    on_h100 = json.loads(kb(write_tree(tree(H100, failed)), "roots", "--json").stdout)
    assert "arch-allowlist-omits-sm12x" in on_h100["not_met"]  # capability 9.0: the SM12x table cannot be it
    assert all("2026-03-02-run" not in r["attempts"] for r in on_h100["roots"])


def test_on_sm120_the_same_error_reaches_the_catalog_root(write_tree):
    data = json.loads(kb(write_tree(tree(RTX, {"outcome": "failed", "error": "KeyError: 12"})), "roots", "--json").stdout)
    row = next(r for r in data["roots"] if r["id"] == "arch-allowlist-omits-sm12x")
    assert row["linked_by"] == {"2026-03-02-run": "signature of sglang-symm-mem-size-table-keyerror-12"}


def test_a_campaign_root_shown_as_a_catalog_row_keeps_its_recorded_fix(write_tree):
    root = write_tree(tree(RTX, {"outcome": "failed", "error": "KeyError: 12", "blocked_by": ["b"]},
                           {"blockers/b.yaml": {"title": "our reading", "fixed_by": [{"cuda": ">=13.0"}]}}))
    data = json.loads(kb(root, "roots", "--json").stdout)
    row = next(r for r in data["roots"] if r["also_recorded_as"] == ["b"])
    assert row["id"] == "arch-allowlist-omits-sm12x"
    assert {"blocker": "b", "kind": "enables", "requires": {"cuda": ">=13.0"}} in row["fixes"]
    text = kb(root, "roots").stdout
    assert "   also recorded as: b (the records: fixed by cuda>=13.0)" in text.splitlines()


def test_an_unknown_campaign_is_refused_by_roots_as_by_next(write_tree):
    root = write_tree(tree(RTX, {"outcome": "failed", "error": "boom"}))
    for cmd in (["roots", "--campaign", "nope"], ["roots", "--now", "--json", "--campaign", "nope"],
                ["next", "--campaign", "nope"]):
        r = kb(root, *cmd)
        assert r.exit_code == 2 and "unknown campaign 'nope'" in r.output, cmd


def test_kb_ask_check_exits_1_on_problems_and_refuses_help(write_tree):
    root = write_tree(tree(RTX, {"outcome": "failed", "error": "boom", "blocked_by": ["nowhere"]}))
    out = kb(root, "ask", "--stdin", stdin='["check"]\n["roots", "--help"]\n["why", "-h"]\n')
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert answers[0]["exit"] == 1 and any("unknown blocker 'nowhere'" in p for p in answers[0]["problems"])
    assert [a["exit"] for a in answers[1:]] == [2, 2]
    assert "not --help" in answers[1]["problems"][0]


def test_a_regex_signature_is_searched_line_by_line_in_bounded_lines(write_tree):
    from kb.queries.signatures import REGEX_LINE_CHARS

    root = write_tree(tree(RTX, {"outcome": "failed", "error": "boom"},
                           {"blockers/oom.yaml": {"title": "oom", "signatures": ["/.*out of memory/"]}}))
    near = "x" * 100 + " out of memory"
    far = "x" * (REGEX_LINE_CHARS + 10) + " out of memory"
    assert [m["blocker"] for m in json.loads(kb(root, "match", "--json", near).stdout)["matches"]] == ["oom"]
    assert json.loads(kb(root, "match", "--json", far).stdout)["matches"] == []
    two_lines = json.loads(kb(root, "match", "--json", "a" * 1_000_000 + "\nCUDA out of memory").stdout)
    assert [m["blocker"] for m in two_lines["matches"]] == ["oom"]


def test_utf16_binary_and_huge_error_files(tmp_path, write_tree):
    root = write_tree(tree(RTX, {"outcome": "failed", "error": "KeyError: 12", "blocked_by": ["b"]},
                           {"blockers/b.yaml": {"title": "b", "signatures": ["KeyError: 12"]}}))
    u16 = tmp_path / "ps.txt"
    u16.write_bytes("Traceback:\r\nKeyError: 12\r\n".encode("utf-16"))  # PowerShell's '>'
    r = kb(root, "match", "--file", str(u16))
    assert r.stdout.splitlines()[:2] == ["error: KeyError: 12", "matches: b: b"]
    binary = tmp_path / "a.out"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\xff\xfe KeyError: 12\x00\x01")
    r = kb(root, "match", "--file", str(binary))
    assert r.exit_code == 0 and "\x00" not in r.stdout and "\x01" not in r.stdout
    huge = kb(root, "match", "KeyError: 12 " + "a" * 100_000)
    assert len(huge.stdout.splitlines()[0]) <= len("error: ") + 300


def test_a_blocker_whose_cause_does_not_apply_is_not_said_to_be_resolved_by_it(write_tree):
    root = write_tree(tree(H100, {"outcome": "failed", "error": "boom", "blocked_by": ["child"]}, {
        "blockers/cause.yaml": {"title": "an SM12x gap", "applies_when": {"compute_capability": ">=12.0"}},
        "blockers/child.yaml": {"title": "a table without 12", "caused_by": ["cause"]}}))
    r = kb(root, "check")
    assert ("blocked_by names child, which stack s resolves (its causes do not apply here): either the attempt ran "
            "on another stack") in r.stdout
