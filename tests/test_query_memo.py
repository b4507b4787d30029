"""``kb roots``, ``kb why`` and ``kb unblocks`` keep their answers under the content of the
records (kb.store.memo answers): the same answer when nothing changed, a fresh one after any edit,
never a failed query, a damaged memo, or an answer computed from bytes other than those hashed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import kb.pipeline
from kb.cli import cli
from kb.store import memo

NCCL = "nccl-tree-incompatible-with-cuda-graphs"
WHY_NCCL = ("2026-02-23-nccl-tree: NCCL Tree algorithm (failed)\n"
            "  error: incompatible with CUDA graphs\n\n"
            f"  → {NCCL} [root cause]: NCCL Tree algorithm incompatible with CUDA graphs\n"
            "    no known fix (workaround: Leave NCCL_ALGO unset (Ring) while CUDA graphs are on.)\n")


def _run(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--records", str(root), *args], prog_name="kb")
    return result.exit_code, result.output


def _count_loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Make every load of the records (kb.pipeline.load_graph) append its folder to the list."""
    ran: list[Path] = []
    real = kb.pipeline.load_graph

    def spy(root, *args, **kwargs):
        ran.append(Path(root))
        return real(root, *args, **kwargs)

    monkeypatch.setattr(kb.pipeline, "load_graph", spy)
    return ran


def _answers(root: Path) -> dict:
    path = memo.memo_path(root, memo.ANSWERS)
    assert path is not None
    return json.loads(path.read_text())["answers"] if path.exists() else {}


QUERIES = [("why", "2026-02-23-nccl-tree"), ("roots", "-n", "2"), ("roots", "--json"),
           ("unblocks", "cuda=13.0", "--from", "cuda-12.8"), ("unblocks", "cuda=13.0", "--json")]


@pytest.mark.parametrize("args", QUERIES)
def test_a_repeated_query_is_answered_the_same_without_loading(records, monkeypatch, args):
    monkeypatch.setenv("KB_CACHE", "off")
    plain = _run(records, *args)  # no memo at all: the reference
    monkeypatch.delenv("KB_CACHE")
    first = _run(records, *args)
    ran = _count_loads(monkeypatch)
    again = _run(records, *args)
    assert plain[0] == 0 and first == plain and again == plain
    assert ran == []  # answered from the memo
    assert len(_answers(records)) == 1


def test_the_answer_kept_is_the_one_printed(records):
    assert _run(records, "why", "2026-02-23-nccl-tree") == (0, WHY_NCCL)
    assert _run(records, "why", "2026-02-23-nccl-tree") == (0, WHY_NCCL)
    kept = _answers(records)
    assert list(kept) == ['["why", {"as_json": false, "attempt": "2026-02-23-nccl-tree"}]']
    assert "".join(text + ("\n" if nl else "") for text, err, nl in next(iter(kept.values()))) == WHY_NCCL


def test_other_options_are_other_answers(records, monkeypatch):
    one = _run(records, "roots", "-n", "1")
    two = _run(records, "roots", "-n", "2")
    assert one[1].count("\n1. ") + one[1].startswith("1. ") == 1 and "\n2. " not in one[1]
    assert "\n2. ep-a2a-gpu-memory-exhausted  (1 attempt; blocks 1 now)" in two[1]
    ran = _count_loads(monkeypatch)
    assert _run(records, "roots", "-n", "1") == one and _run(records, "roots", "-n", "2") == two and ran == []
    assert len(_answers(records)) == 2


def test_a_same_size_edit_is_answered_afresh(records, monkeypatch):
    assert _run(records, "why", "2026-02-23-nccl-tree") == (0, WHY_NCCL)
    f = records / "blockers" / f"{NCCL}.yaml"
    st = f.stat()
    f.write_text(f.read_text().replace("title: NCCL Tree algorithm", "title: NCCL TREE algorithm"))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime: only the bytes differ
    ran = _count_loads(monkeypatch)
    code, out = _run(records, "why", "2026-02-23-nccl-tree")
    assert ran == [records] and code == 0
    assert f"→ {NCCL} [root cause]: NCCL TREE algorithm incompatible with CUDA graphs" in out
    assert len(_answers(records)) == 1  # the answer of the old content is dropped


def test_a_failed_query_keeps_nothing(records, monkeypatch):
    code, out = _run(records, "why", "nope")
    assert code == 1 and "unknown attempt 'nope'" in out
    assert _answers(records) == {}
    ran = _count_loads(monkeypatch)
    assert _run(records, "why", "nope") == (code, out) and ran == [records]


def test_invalid_records_are_reported_every_time(records, monkeypatch):
    (records / "attempts" / "2026-03-01-bad.yaml").write_text("title: Bad\nblocked_byy: []\n")
    first = _run(records, "roots")
    assert first[0] == 1 and "records/attempts/2026-03-01-bad.yaml:2: blocked_byy: unknown key" in first[1]
    ran = _count_loads(monkeypatch)
    assert _run(records, "roots") == first and ran == [records]
    assert _answers(records) == {}


def test_a_file_the_hash_did_not_see_keeps_nothing(records, monkeypatch):
    """A record file added between the hash and the load is loaded (read afresh), but the answer
    is not kept under the content hashed before it existed."""
    real = memo.tree_digest

    def then_add(folder, keep=None, listing=None):
        digest = real(folder, keep, listing)
        if keep is not None:
            (records / "attempts" / "2026-03-01-late.yaml").write_text(
                "title: Late\ndate: 2026-03-01\ncampaign: kimi-k25-eagle3-blackwell\napproach: x\noutcome: failed\nerror: late error\n")
        return digest

    monkeypatch.setattr(memo, "tree_digest", then_add)
    code, out = _run(records, "why", "2026-03-01-late")
    assert code == 0 and out.startswith("2026-03-01-late: Late (failed)")
    assert _answers(records) == {}


def test_a_catalog_edit_is_answered_afresh(records, tmp_path, monkeypatch):
    catalog = tmp_path / "team-catalog"
    (catalog / "blockers").mkdir(parents=True)
    (catalog / "blockers" / "our-bug.yaml").write_text("title: our bug\nsignatures: ['our very own error']\n")
    camp = records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    camp.write_text(camp.read_text() + "catalogs: [../team-catalog]\n")
    before = _run(records, "roots")
    ran = _count_loads(monkeypatch)
    assert _run(records, "roots") == before and ran == []
    (catalog / "blockers" / "our-bug.yaml").write_text("title: our bug\nsignaturez: ['our very own error']\n")
    code, out = _run(records, "roots")
    assert ran == [records] and code == 1 and "our-bug.yaml:2: signaturez: unknown key" in out
    assert before[0] == 0


@pytest.mark.parametrize("damage", ["garbage", "other-kb", "wrong-tree", "wrong-shape"])
def test_a_damaged_or_foreign_memo_is_ignored(records, monkeypatch, damage):
    assert _run(records, "why", "2026-02-23-nccl-tree") == (0, WHY_NCCL)
    path = memo.memo_path(records, memo.ANSWERS)
    data = json.loads(path.read_text())
    key = next(iter(data["answers"]))
    data["answers"][key] = [["a lie that must never be shown", False, True]]
    if damage == "garbage":
        path.write_text("{not json")
    else:
        if damage == "other-kb":
            data["code"] = "0" * 64
        elif damage == "wrong-tree":
            data["tree"] = "0" * 64
        else:
            data["answers"][key] = [["a lie that must never be shown", "stderr?", True]]
        path.write_text(json.dumps(data))
    ran = _count_loads(monkeypatch)
    assert _run(records, "why", "2026-02-23-nccl-tree") == (0, WHY_NCCL) and ran == [records]


def test_catalog_roots_are_never_kept(records):
    """``kb roots --catalog`` may read the catalogs shipped with kb: not kept."""
    code, out = _run(records, "roots", "--catalog")
    assert code == 0 and "(explains " in out
    assert _answers(records) == {}


def test_no_memo_with_the_cache_off(records, monkeypatch):
    monkeypatch.setenv("KB_CACHE", "off")
    assert _run(records, "why", "2026-02-23-nccl-tree") == (0, WHY_NCCL)
    assert not (records.parent / ".kb-cache").exists()


def test_at_most_max_answers_are_kept_oldest_dropped_first(records, monkeypatch):
    monkeypatch.setattr(memo, "MAX_ANSWERS", 2)
    for n in ("1", "2", "3"):
        assert _run(records, "roots", "-n", n)[0] == 0
    assert [json.loads(k)[1]["limit"] for k in _answers(records)] == [2, 3]


def test_a_file_removed_after_the_hash_keeps_nothing(records, monkeypatch):
    """Every record loaded came from the bytes hashed, but the folder no longer holds what was
    hashed: the answer is printed, not kept."""
    real = memo.tree_digest
    (records / "attempts" / "notes.yaml~").write_text("editor backup")

    def then_remove(folder, keep=None, listing=None):
        digest = real(folder, keep, listing)
        if keep is not None:
            (records / "attempts" / "notes.yaml~").unlink()
        return digest

    monkeypatch.setattr(memo, "tree_digest", then_remove)
    assert _run(records, "why", "2026-02-23-nccl-tree") == (0, WHY_NCCL)
    assert _answers(records) == {}
