"""Supersession rules tested from the spec (not from the code): only a decision that is or was
accepted (accepted, deprecated, superseded) retires what it lists in `supersedes`; a proposed one
leaves it standing with a warning; a rejected one supersedes nothing; a decision marked superseded
needs an accepted/deprecated/superseded lister. The same must hold after `kb import --format adr`
of adr-tools, MADR and log4brains logs: the imported records check without errors. What an ADR
says of itself ("Superseded by X") is the log's own statement and is kept (issue 26): when X was
never accepted, kb check warns about it instead of failing."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner
from test_store import valid_tree

from kb.cli import cli

# --------------------------------------------------------------------------- native records

SUPERSEDES_LINE = 11  # the line `supersedes:` lands on in decision() (flow style)
STATUS_LINE = 2


def decision(status: str, supersedes: list[str] | None = None, *, block: bool = False,
             title: str | None = None) -> str:
    """A decision record; `block=True` writes supersedes one item a line (items on lines 12, 13, ...)."""
    text = (f"title: {title or 'Decision ' + status}\nstatus: {status}\ndate: 2026-03-01\ncontext: why\n"
            "considered_options:\n  - title: Go\n    evidence: [a]\n  - title: Stay\noutcome:\n  chosen: Go\n")
    if not supersedes:
        return text
    if block:
        return text + "supersedes:\n" + "".join(f"  - {s}\n" for s in supersedes)
    return text + f"supersedes: [{', '.join(supersedes)}]\n"


def check(write_tree, decisions: dict[str, str], *args: str):
    root = valid_tree(write_tree)
    for rid, text in decisions.items():
        (root / f"decisions/{rid}.yaml").write_text(text, encoding="utf-8")
    return CliRunner().invoke(cli, ["--records", str(root), "check", *args])


def at(rid: str, line: int, field: str) -> str:
    return f"records/decisions/{rid}.yaml:{line}: {field}: "


def lines(result) -> list[str]:
    return result.stdout.splitlines()


def errors(result) -> list[str]:
    return [ln for ln in lines(result) if ": warning:" not in ln]


def warnings(result) -> list[str]:
    return [ln for ln in lines(result) if ": warning:" in ln]


def test_chain_of_four_all_marked_checks_clean(write_tree):
    # v1 <- v2 <- v3 <- v4 (accepted); every retired one is superseded, and each lister was accepted
    ds = {"v1": decision("superseded"), "v2": decision("superseded", ["v1"]),
          "v3": decision("superseded", ["v2"]), "v4": decision("accepted", ["v3"])}
    r = check(write_tree, ds)
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert check(write_tree, {}, "--strict").exit_code == 0


def test_chain_of_three_with_the_middle_one_left_accepted(write_tree):
    # v3 (accepted) supersedes v2, but v2 still says accepted: an error at v3's supersedes.0 only
    ds = {"v1": decision("superseded"), "v2": decision("accepted", ["v1"]), "v3": decision("accepted", ["v2"])}
    r = check(write_tree, ds)
    assert r.exit_code == 1, r.output
    errs = errors(r)
    assert len(errs) == 1, r.output
    assert errs[0].startswith(at("v3", SUPERSEDES_LINE, "supersedes.0")), r.output
    assert "v2" in errs[0]


def test_chain_whose_top_was_deleted_leaves_the_last_superseded_unexplained(write_tree):
    # v1 <- v2 (superseded); nothing lists v2. v1 is fine (v2 was accepted once); v2 is an error at status
    r = check(write_tree, {"v1": decision("superseded"), "v2": decision("superseded", ["v1"])})
    assert r.exit_code == 1, r.output
    errs = errors(r)
    assert len(errs) == 1, r.output
    assert errs[0].startswith(at("v2", STATUS_LINE, "status")), r.output
    assert "(proposed)" not in errs[0]


def test_one_decision_supersedes_two_with_different_statuses(write_tree):
    # merged supersedes old-a (superseded: fine) and old-b (still accepted: error at supersedes.1's line)
    ds = {"old-a": decision("superseded"), "old-b": decision("accepted"),
          "merged": decision("accepted", ["old-a", "old-b"], block=True)}
    r = check(write_tree, ds)
    assert r.exit_code == 1, r.output
    errs = errors(r)
    assert len(errs) == 1, r.output
    assert errs[0].startswith(at("merged", 13, "supersedes.1")), r.output
    assert "old-b" in errs[0] and "old-a" not in errs[0]


def test_proposed_superseding_two_warns_once_per_item(write_tree):
    ds = {"old-a": decision("accepted"), "old-b": decision("deprecated"),
          "pending": decision("proposed", ["old-a", "old-b"], block=True)}
    r = check(write_tree, ds)
    assert r.exit_code == 0, r.output
    assert errors(r) == [], r.output
    ws = warnings(r)
    assert len(ws) == 2, r.output
    assert ws[0].startswith(at("pending", 12, "supersedes.0") + "warning:"), r.output
    assert ws[1].startswith(at("pending", 13, "supersedes.1") + "warning:"), r.output
    assert "would supersede old-a" in ws[0] and "once accepted" in ws[0]
    assert "would supersede old-b" in ws[1] and "once accepted" in ws[1]
    assert check(write_tree, {}, "--strict").exit_code == 1


def test_accepted_and_proposed_both_list_an_unmarked_one(write_tree):
    # o is still accepted: the accepted lister is wrong (an error at its supersedes.0). kb reports
    # warnings only on a tree without errors, so the proposed lister's warning is looked at afterwards.
    ds = {"o": decision("accepted"), "n": decision("accepted", ["o"]), "pending": decision("proposed", ["o"])}
    r = check(write_tree, ds)
    assert r.exit_code == 1, r.output
    errs = errors(r)
    assert len(errs) == 1 and errs[0].startswith(at("n", SUPERSEDES_LINE, "supersedes.0")), r.output
    assert "'o'" in errs[0]
    # the team marks o superseded: n retires it, and the pending proposal has nothing left to warn about
    r = check(write_tree, {"o": decision("superseded")})
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    # the team instead withdraws n (rejected, its list emptied): o stands and pending warns
    r = check(write_tree, {"o": decision("accepted"), "n": decision("rejected")})
    assert r.exit_code == 0, r.output
    ws = warnings(r)
    assert len(lines(r)) == 1 and len(ws) == 1, r.output
    assert ws[0].startswith(at("pending", SUPERSEDES_LINE, "supersedes.0") + "warning:"), r.output
    assert "would supersede o" in ws[0] and "once accepted" in ws[0]
    assert check(write_tree, {}, "--strict").exit_code == 1


def test_deprecated_superseder_retires_what_it_lists(write_tree):
    # accepted once, deprecated since: o stays superseded, and a proposed one listing o too changes nothing
    ds = {"o": decision("superseded"), "n": decision("deprecated", ["o"]), "pending": decision("proposed", ["o"])}
    r = check(write_tree, ds)
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert check(write_tree, {}, "--strict").exit_code == 0


def test_deprecated_superseder_still_demands_the_mark(write_tree):
    r = check(write_tree, {"o": decision("accepted"), "n": decision("deprecated", ["o"])})
    assert r.exit_code == 1, r.output
    errs = errors(r)
    assert len(errs) == 1 and errs[0].startswith(at("n", SUPERSEDES_LINE, "supersedes.0")), r.output
    assert "'o'" in errs[0] or " o " in errs[0] or "o," in errs[0]


def test_superseded_but_only_two_proposed_listers(write_tree):
    ds = {"o": decision("superseded"), "p1": decision("proposed", ["o"]), "p2": decision("proposed", ["o"])}
    r = check(write_tree, ds)
    assert r.exit_code == 1, r.output
    errs = errors(r)
    assert len(errs) == 1, r.output
    assert errs[0].startswith(at("o", STATUS_LINE, "status")), r.output
    # the message names both proposed listers ("only X (proposed) lists it")
    assert "only " in errs[0] and "(proposed)" in errs[0] and "p1" in errs[0] and "p2" in errs[0]


def test_superseded_with_nobody_listing_it(write_tree):
    r = check(write_tree, {"o": decision("superseded")})
    assert r.exit_code == 1, r.output
    assert len(lines(r)) == 1 and lines(r)[0].startswith(at("o", STATUS_LINE, "status")), r.output
    assert "(proposed)" not in lines(r)[0]


def test_rejected_listing_two_is_an_error_per_item(write_tree):
    ds = {"o1": decision("accepted"), "o2": decision("accepted"),
          "r": decision("rejected", ["o1", "o2"], block=True)}
    r = check(write_tree, ds)
    assert r.exit_code == 1, r.output
    errs = errors(r)
    assert len(errs) == 2, r.output
    assert errs[0].startswith(at("r", 12, "supersedes.0")) and "status is 'rejected', so it supersedes nothing" in errs[0]
    assert errs[1].startswith(at("r", 13, "supersedes.1")) and "status is 'rejected', so it supersedes nothing" in errs[1]
    assert "o1" in errs[0] and "o2" in errs[1]


def test_rejected_beside_an_accepted_superseder(write_tree):
    # o is rightly superseded by n; the rejected alternative r also listed it: only r is wrong
    ds = {"o": decision("superseded"), "n": decision("accepted", ["o"]), "r": decision("rejected", ["o"])}
    r = check(write_tree, ds)
    assert r.exit_code == 1, r.output
    assert len(lines(r)) == 1, r.output
    assert lines(r)[0].startswith(at("r", SUPERSEDES_LINE, "supersedes.0"))
    assert "status is 'rejected', so it supersedes nothing" in lines(r)[0]


def test_a_realistic_consistent_history_passes_strict(write_tree):
    ds = {
        "2025-01-serve-vllm": decision("superseded", title="Serve with vLLM"),
        "2025-06-serve-sglang": decision("superseded", ["2025-01-serve-vllm"], title="Serve with SGLang"),
        "2026-01-serve-sglang-eagle3": decision("accepted", ["2025-06-serve-sglang"], title="SGLang + EAGLE-3"),
        "2025-03-try-trtllm": decision("rejected", title="Try TensorRT-LLM"),
        "2025-02-fp16-kv": decision("deprecated", title="FP16 KV cache"),
        "2026-02-fp4-gemm": decision("proposed", title="FP4 GEMM"),
        "2025-04-nccl-ring": decision("superseded", title="NCCL ring"),
        "2025-04-nccl-env": decision("superseded", title="NCCL env flags"),
        "2025-09-nccl-tree": decision("accepted", ["2025-04-nccl-ring", "2025-04-nccl-env"], block=True,
                                      title="NCCL tree"),
    }
    r = check(write_tree, ds, "--strict")
    assert r.exit_code == 0, r.output
    assert r.stdout == ""


# --------------------------------------------------------------------------- imported ADR logs

def write_files(base: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return base


def import_and_check(tmp_path: Path, files: dict[str, str]):
    """Import the log under tmp_path/log with the CLI, then check; return (import, check, records by file name)."""
    src = write_files(tmp_path / "log", files)
    rec = tmp_path / "records"
    runner = CliRunner()
    imp = runner.invoke(cli, ["--records", str(rec), "import", "--format", "adr", str(src)])
    chk = runner.invoke(cli, ["--records", str(rec), "check"])
    by_file: dict[str, dict] = {}
    for p in sorted((rec / "decisions").glob("*.yaml")):
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
        data["_id"] = p.stem
        for s in data.get("source") or []:
            by_file[Path(s["file"]).name] = data
    return imp, chk, by_file


def adr_tools(n: int, title: str, date: str, status_lines: list[str], decision_text: str) -> str:
    status = "\n\n".join(status_lines)
    return (f"# {n}. {title}\n\nDate: {date}\n\n## Status\n\n{status}\n\n## Context\n\nThe context of {title}.\n\n"
            f"## Decision\n\n{decision_text}\n\n## Consequences\n\nSome consequences.\n")


def test_adr_tools_adr_new_s_chain_of_three_imports_clean(tmp_path):
    # made with: adr new Use vLLM; adr new -s 1 Use SGLang; adr new -s 2 Use SGLang with EAGLE-3
    files = {
        "doc/adr/0001-use-vllm.md": adr_tools(
            1, "Use vLLM", "2025-11-10", ["Superseded by [2. Use SGLang](0002-use-sglang.md)"], "Use vLLM."),
        "doc/adr/0002-use-sglang.md": adr_tools(
            2, "Use SGLang", "2026-01-20",
            ["Supersedes [1. Use vLLM](0001-use-vllm.md)",
             "Superseded by [3. Use SGLang with EAGLE-3](0003-use-sglang-with-eagle-3.md)"], "Use SGLang."),
        "doc/adr/0003-use-sglang-with-eagle-3.md": adr_tools(
            3, "Use SGLang with EAGLE-3", "2026-02-27",
            ["Accepted", "Supersedes [2. Use SGLang](0002-use-sglang.md)"], "Turn on EAGLE-3."),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert chk.stdout == "", chk.output
    v1, v2, v3 = by["0001-use-vllm.md"], by["0002-use-sglang.md"], by["0003-use-sglang-with-eagle-3.md"]
    assert (v1["status"], v2["status"], v3["status"]) == ("superseded", "superseded", "accepted")
    assert v2["supersedes"] == [v1["_id"]] and v3["supersedes"] == [v2["_id"]]


def test_adr_tools_adr_new_s_pair_both_accepted_imports_clean(tmp_path):
    # a log where the old one kept "Accepted" above the "Superseded by" line, and the new one says both
    files = {
        "doc/adr/0001-record-architecture-decisions.md": adr_tools(
            1, "Record architecture decisions", "2025-10-01", ["Accepted"], "Keep ADRs."),
        "doc/adr/0002-use-fp16-kv-cache.md": adr_tools(
            2, "Use FP16 KV cache", "2025-11-01",
            ["Accepted", "Superseded by [3. Use FP8 KV cache](0003-use-fp8-kv-cache.md)"], "FP16."),
        "doc/adr/0003-use-fp8-kv-cache.md": adr_tools(
            3, "Use FP8 KV cache", "2026-01-05",
            ["Accepted", "Supersedes [2. Use FP16 KV cache](0002-use-fp16-kv-cache.md)"], "FP8."),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert errors(chk) == [], chk.output
    old, new = by["0002-use-fp16-kv-cache.md"], by["0003-use-fp8-kv-cache.md"]
    assert new["status"] == "accepted" and new["supersedes"] == [old["_id"]]
    assert old["status"] == "superseded"


def test_adr_tools_superseded_by_a_proposed_one_is_kept_as_the_log_says(tmp_path):
    files = {
        "doc/adr/0001-use-ring-allreduce.md": adr_tools(
            1, "Use ring allreduce", "2025-12-01",
            ["Superseded by [2. Use tree allreduce](0002-use-tree-allreduce.md)"], "Ring."),
        "doc/adr/0002-use-tree-allreduce.md": adr_tools(
            2, "Use tree allreduce", "2026-01-05",
            ["Proposed", "Supersedes [1. Use ring allreduce](0001-use-ring-allreduce.md)"], "Tree."),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert errors(chk) == [], chk.output
    old, new = by["0001-use-ring-allreduce.md"], by["0002-use-tree-allreduce.md"]
    assert new["status"] == "proposed" and new["supersedes"] == [old["_id"]]
    assert old["status"] == "superseded"  # the log's own statement
    assert "warning:" in imp.stderr and "0001-use-ring-allreduce.md: the ADR says it is superseded" in imp.stderr
    assert [w.split(": warning: ")[1].split(" (")[0] for w in warnings(chk)] == ["superseded as its ADR states"]
    assert f"{old['_id']}.yaml" in warnings(chk)[0] and "accept the newer one, or correct the status" in warnings(chk)[0]


def madr3(status: str, date: str, title: str, more: str = "") -> str:
    return (f"---\nstatus: {status}\ndate: {date}\ndeciders: [Ana Ruiz]\n---\n# {title}\n\n"
            f"## Context and Problem Statement\n\nWhy {title}?\n\n## Considered Options\n\n* {title}\n* Stay\n\n"
            f"## Decision Outcome\n\nChosen option: \"{title}\", because it measured faster.\n"
            + (f"\n## More Information\n\n{more}\n" if more else ""))


def test_madr3_log_with_a_proposed_replacement(tmp_path):
    files = {
        "docs/decisions/0001-use-cuda-12-8.md": madr3(
            '"superseded by [ADR-0002](0002-adopt-cuda-13.md)"', "2025-10-01", "Use CUDA 12.8"),
        "docs/decisions/0002-adopt-cuda-13.md": madr3(
            "proposed", "2026-02-14", "Adopt CUDA 13",
            "Supersedes [ADR-0001](0001-use-cuda-12-8.md)."),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert errors(chk) == [], chk.output
    old, new = by["0001-use-cuda-12-8.md"], by["0002-adopt-cuda-13.md"]
    assert new["status"] == "proposed"
    assert old["status"] == "superseded"  # as its front matter says
    assert "warning:" in imp.stderr and "0001-use-cuda-12-8.md" in imp.stderr
    assert any("superseded as its ADR states" in w for w in warnings(chk)), chk.output


def test_madr2_dash_status_with_a_deprecated_replacement(tmp_path):
    # "- Status: ..." lines; the replacement was accepted once and is deprecated now: old stays superseded
    def madr2(status: str, date: str, title: str) -> str:
        return (f"# {title}\n\n- Status: {status}\n- Deciders: Kenji Sato\n- Date: {date}\n\n"
                f"## Context and Problem Statement\n\nWhy {title}?\n\n## Considered Options\n\n- {title}\n- Stay\n\n"
                f"## Decision Outcome\n\nChosen option: \"{title}\", because it was simpler.\n")
    files = {
        "docs/adr/0001-use-tp4.md": madr2("superseded by [ADR-0002](0002-use-tp8.md)", "2025-09-01", "Use TP4"),
        "docs/adr/0002-use-tp8.md": madr2("deprecated", "2025-12-01", "Use TP8"),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert errors(chk) == [], chk.output
    old, new = by["0001-use-tp4.md"], by["0002-use-tp8.md"]
    assert new["status"] == "deprecated"
    assert old["status"] == "superseded" and new.get("supersedes") == [old["_id"]]


def log4brains(title: str, status: str, date: str | None, links: list[str] | None = None) -> str:
    head = f"# {title}\n\n- Status: {status}\n" + (f"- Date: {date}\n" if date else "") + "- Deciders: Ana Ruiz\n"
    body = (f"\n## Context and Problem Statement\n\nWhy {title}?\n\n## Decision Outcome\n\n"
            f"Chosen option: \"{title}\", because it is faster.\n")
    if links:
        body += "\n## Links\n\n" + "".join(f"- {ln}\n" for ln in links)
    return head + body


def test_log4brains_rejected_replacement_drops_its_supersedes(tmp_path):
    files = {
        ".log4brains.yml": "project:\n  name: serving\n",
        "docs/adr/20251201-use-ring-allreduce.md": log4brains("Use ring allreduce", "accepted", "2025-12-01"),
        "docs/adr/20260105-use-tree-allreduce.md": log4brains(
            "Use tree allreduce", "rejected", "2026-01-05",
            ["Supersedes [20251201-use-ring-allreduce](20251201-use-ring-allreduce.md)"]),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert chk.stdout == "", chk.output
    old, new = by["20251201-use-ring-allreduce.md"], by["20260105-use-tree-allreduce.md"]
    assert new["status"] == "rejected" and not new.get("supersedes")
    assert "ring-allreduce" in new.get("notes", "")  # the dropped link is kept in its notes
    assert old["status"] == "accepted"


def test_log4brains_old_says_superseded_by_the_rejected_one(tmp_path):
    # the old ADR was edited to "superseded by" before the proposal was rejected: still no check errors
    files = {
        ".log4brains.yml": "project:\n  name: serving\n",
        "docs/adr/20251201-use-ring-allreduce.md": log4brains(
            "Use ring allreduce", "superseded by [20260105-use-tree-allreduce](20260105-use-tree-allreduce.md)",
            "2025-12-01"),
        "docs/adr/20260105-use-tree-allreduce.md": log4brains(
            "Use tree allreduce", "rejected", "2026-01-05",
            ["Supersedes [20251201-use-ring-allreduce](20251201-use-ring-allreduce.md)"]),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert errors(chk) == [], chk.output
    new = by["20260105-use-tree-allreduce.md"]
    assert new["status"] == "rejected" and not new.get("supersedes")


def test_log4brains_chain_of_three_with_a_draft_on_top(tmp_path):
    # ring <- tree <- nvls (a draft): each "superseded by" is the log's statement and kept; ring is answered by an
    # accepted-then-superseded tree, tree only by the draft (a check warning, not an error)
    files = {
        ".log4brains.yml": "project:\n  name: serving\n",
        "docs/adr/20251201-use-ring.md": log4brains(
            "Use ring", "superseded by [20260105-use-tree](20260105-use-tree.md)", "2025-12-01"),
        "docs/adr/20260105-use-tree.md": log4brains(
            "Use tree", "superseded by [20260301-use-nvls](20260301-use-nvls.md)", "2026-01-05",
            ["Supersedes [20251201-use-ring](20251201-use-ring.md)"]),
        "docs/adr/20260301-use-nvls.md": log4brains(
            "Use NVLS", "draft", None, ["Supersedes [20260105-use-tree](20260105-use-tree.md)"]),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    assert chk.exit_code == 0, chk.output
    assert errors(chk) == [], chk.output
    ring, tree, nvls = by["20251201-use-ring.md"], by["20260105-use-tree.md"], by["20260301-use-nvls.md"]
    assert nvls["status"] == "proposed" and nvls["supersedes"] == [tree["_id"]]
    assert tree["status"] == "superseded"  # the log says so; the draft on top leaves kb check warning about it
    assert ring["status"] == "superseded" and tree.get("supersedes") == [ring["_id"]]
    assert "warning:" in imp.stderr and "20260105-use-tree.md" in imp.stderr
    assert [w for w in warnings(chk) if "superseded as its ADR states" in w] != []


def test_adr_tools_adr_new_s_whose_new_one_was_then_rejected(tmp_path):
    # `adr new -s 1 Use tree` wrote "Superseded by" into 0001; the team then set 0002 to Rejected and
    # left 0001 as adr-tools had edited it: the import must still check without errors
    files = {
        "doc/adr/0001-use-ring.md": adr_tools(
            1, "Use ring", "2025-12-01", ["Superseded by [2. Use tree](0002-use-tree.md)"], "Ring."),
        "doc/adr/0002-use-tree.md": adr_tools(
            2, "Use tree", "2026-01-05", ["Rejected", "Supersedes [1. Use ring](0001-use-ring.md)"], "Tree."),
    }
    imp, chk, by = import_and_check(tmp_path, files)
    assert imp.exit_code == 0, imp.output
    new = by["0002-use-tree.md"]
    assert new["status"] == "rejected" and not new.get("supersedes")
    assert "use-ring" in new.get("notes", "")
    assert chk.exit_code == 0, chk.output
    assert errors(chk) == [], chk.output
