"""``kb check`` keeps its report under the content of the records (kb.store.memo): the same
report when nothing changed, a fresh one after any edit, never a damaged or foreign memo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import kb.cli.check as check_cmd
from kb.cli import cli
from kb.store import memo

CAMPAIGN = Path(__file__).parent / "fixtures" / "campaign"


def _run(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--records", str(root), "check", *args], prog_name="kb")
    return result.exit_code, result.output


def _count_checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Make every full check (loading the records) append its folder to the returned list."""
    ran: list[Path] = []
    real = check_cmd._check

    def spy(root, *args):
        ran.append(Path(root))
        return real(root, *args)

    monkeypatch.setattr(check_cmd, "_check", spy)
    return ran


def test_a_second_check_gives_the_same_report_without_loading(records, monkeypatch):
    (records / "attempts" / "x.yaml~").write_text("backup")
    first = _run(records)
    first_json = _run(records, "--json")
    ran = _count_checks(monkeypatch)
    assert _run(records) == first and _run(records, "--json") == first_json
    assert ran == []  # both answered from the memo
    assert first[0] == 0 and "records OK" in first[1] and "skipped 1 editor/OS leftover file" in first[1]
    assert json.loads(first_json[1])["ignored"] == [{"path": "records/attempts/x.yaml~", "what": "editor backup"}]
    path = memo.memo_path(records, "check")
    assert path is not None and path.parent == records.parent / ".kb-cache" and path.is_file()


def test_problems_come_back_with_their_exit_code(records, monkeypatch):
    (records / "attempts" / "2026-03-01-bad.yaml").write_text(
        "title: Bad\ndate: 2026-03-01\ncampaign: kimi-k25-eagle3-blackwell\napproach: x\noutcome: failed\nblocked_byy: []\n")
    first = _run(records)
    assert first[0] == 1 and "records/attempts/2026-03-01-bad.yaml:6: blocked_byy: unknown key" in first[1]
    ran = _count_checks(monkeypatch)
    assert _run(records) == first and ran == []


@pytest.mark.parametrize("change", ["same-size-edit", "new-file", "deleted-file", "leftover", "stray", "asset", "folder"])
def test_any_change_to_the_folder_checks_again(records, monkeypatch, change):
    _run(records)
    ran = _count_checks(monkeypatch)
    f = records / "stacks" / "cuda-13.0.yaml"
    if change == "same-size-edit":
        st = f.stat()
        text = f.read_text()
        f.write_text(text.replace("title: CUDA 13 stack", "title: CUDA 13 stacK"))
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    elif change == "new-file":
        (records / "attempts" / "2026-03-01-bad.yaml").write_text("title: Bad\n")
    elif change == "deleted-file":
        f.unlink()
    elif change == "leftover":
        (records / "stacks" / "cuda-13.0.yaml.orig").write_text("x")
    elif change == "stray":
        (records / "stacks" / "notes.txt").write_text("x")
    elif change == "asset":
        (records / "assets").mkdir(exist_ok=True)
        (records / "assets" / "timeline.png").write_bytes(b"\x89PNG")
    else:
        (records / "attempt").mkdir()
    code, out = _run(records)
    assert ran == [records]
    assert (code, out) == _run(records)  # and the new report is kept in turn
    assert len(ran) == 1
    if change == "same-size-edit":
        assert code == 0
    if change == "stray":
        assert "records/stacks/notes.txt: not a record file" in out
    if change == "folder":
        assert "records/attempt: unknown folder" in out


def test_a_catalog_edit_checks_again(records, tmp_path, monkeypatch):
    catalog = tmp_path / "team-catalog"
    (catalog / "blockers").mkdir(parents=True)
    (catalog / "blockers" / "our-bug.yaml").write_text("title: our bug\nsignatures: ['our very own error']\n")
    camp = records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    camp.write_text(camp.read_text() + "catalogs: [../team-catalog]\n")
    first = _run(records)
    assert first[0] == 0, first
    ran = _count_checks(monkeypatch)
    assert _run(records) == first and ran == []
    (catalog / "blockers" / "our-bug.yaml").write_text("title: our bug\nsignaturez: ['our very own error']\n")
    code, out = _run(records)
    assert ran == [records] and code == 1 and "our-bug.yaml:2: signaturez: unknown key" in out


@pytest.mark.parametrize("damage", ["garbage", "wrong-format", "other-kb", "wrong-shape", "wrong-tree"])
def test_a_damaged_or_foreign_memo_is_ignored(records, monkeypatch, damage):
    first = _run(records)
    path = memo.memo_path(records, "check")
    data = json.loads(path.read_text())
    if damage == "garbage":
        path.write_text("{not json")
    elif damage == "wrong-format":
        data["format"] = "kb-result-memo 0"
    elif damage == "other-kb":
        data["code"] = "0" * 64
    elif damage == "wrong-shape":
        data["result"]["problems"] = [["a", "not a line", "", "lie"]]
    else:
        data["tree"] = "0" * 64
    if damage != "garbage":
        data["result"]["records"] = 999_999  # a lie that must never be shown
        path.write_text(json.dumps(data))
    ran = _count_checks(monkeypatch)
    assert _run(records) == first and ran == [records]
    assert "999999" not in _run(records)[1]


def test_the_memo_can_be_turned_off(records, monkeypatch):
    monkeypatch.setenv("KB_CACHE", "off")
    ran = _count_checks(monkeypatch)
    first = _run(records)
    assert _run(records) == first and len(ran) == 2
    assert not (records.parent / ".kb-cache").exists()


def test_a_warm_check_imports_neither_the_models_nor_pydantic(records):
    env = {k: v for k, v in os.environ.items() if k not in ("KB_CACHE_DIR", "KB_CACHE")}
    script = ("import sys\nfrom kb.cli import main\nsys.argv = ['kb', '--records', sys.argv[1], 'check']\n"
              "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
              "print('RESULT', code, 'pydantic' in sys.modules, 'kb.models' in sys.modules, 'networkx' in sys.modules)\n")
    runs = [subprocess.run([sys.executable, "-c", script, str(records)], capture_output=True, text=True, env=env,
                           timeout=120) for _ in range(2)]
    results = [next(line for line in r.stdout.splitlines() if line.startswith("RESULT")) for r in runs]
    # the first check needs no networkx either: the records have no cycle to name (kb.graph._has_cycle)
    assert results == ["RESULT 0 True True False", "RESULT 0 False False False"], [r.stderr[-2000:] for r in runs]
    assert runs[0].stderr == runs[1].stderr and "records OK" in runs[1].stderr


def test_the_folder_digest_follows_linked_folders_once_and_sees_edits_in_them(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.yaml").write_text("title: a\n")
    root = tmp_path / "records"
    root.mkdir()
    (root / "attempts").symlink_to(outside, target_is_directory=True)
    (root / "loop").symlink_to(root, target_is_directory=True)  # a link back up must not loop
    first = memo.tree_digest(root)
    assert memo.tree_digest(root) == first
    (outside / "a.yaml").write_text("title: b\n")
    assert memo.tree_digest(root) != first


def test_a_catalog_folder_created_after_a_check_is_read_by_the_next(records, tmp_path, monkeypatch):
    camp = records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    camp.write_text(camp.read_text() + "catalogs: [../team-catalog]\n")
    code, out = _run(records)
    assert code == 1 and "unknown catalog '../team-catalog'" in out
    catalog = tmp_path / "team-catalog"
    (catalog / "blockers").mkdir(parents=True)
    (catalog / "blockers" / "our-bug.yaml").write_text("title: our bug\nsignatures: ['our very own error']\n")
    ran = _count_checks(monkeypatch)
    code, out = _run(records)
    assert ran == [records] and code == 0 and "records OK" in out


def test_a_file_added_while_checking_keeps_no_report(records, monkeypatch):
    """The check loads the bytes its digest read; a stray file that appears after that walk is
    reported, and the report is not kept under the digest of the folder without it."""
    real = memo.tree_digest

    def then_add(folder, keep=None, listing=None):
        digest = real(folder, keep, listing)
        if keep is not None:
            (records / "stacks" / "notes.txt").write_text("x")
        return digest

    monkeypatch.setattr(memo, "tree_digest", then_add)
    code, out = _run(records)
    assert code == 1 and "records/stacks/notes.txt: not a record file" in out
    assert memo.recall(records, "check") is None
    monkeypatch.setattr(memo, "tree_digest", real)
    (records / "stacks" / "notes.txt").unlink()
    assert _run(records)[0] == 0


def test_a_check_keeps_its_report_read_from_the_bytes_hashed(records, monkeypatch):
    """A record edited after the walk: the check reports the bytes it hashed, kept under their
    digest; the next check sees the edit."""
    real = memo.tree_digest
    f = records / "stacks" / "cuda-13.0.yaml"

    def then_edit(folder, keep=None, listing=None):
        digest = real(folder, keep, listing)
        if keep is not None:
            f.write_text(f.read_text() + "bogus_key: 1\n")
        return digest

    monkeypatch.setattr(memo, "tree_digest", then_edit)
    assert _run(records)[0] == 0  # the bytes hashed were fine
    monkeypatch.setattr(memo, "tree_digest", real)
    code, out = _run(records)
    assert code == 1 and "records/stacks/cuda-13.0.yaml" in out and "bogus_key" in out


def test_the_listing_digest_sees_names_not_bytes(records):
    listing: list[str] = []
    memo.tree_digest(records, None, listing)
    first = memo.listing_digest(records)
    assert memo.listing_digest(listing=listing) == first
    assert "\0Fstacks/cuda-13.0.yaml" in listing and "\0Dstacks" in listing
    f = records / "stacks" / "cuda-13.0.yaml"
    f.write_text(f.read_text() + "# edited\n")
    assert memo.listing_digest(records) == first  # the bytes are the tree digest's business
    (records / "stacks" / "x.yaml~").write_text("x")
    assert memo.listing_digest(records) != first


def test_a_check_after_an_edit_hashes_the_folder_once(records, monkeypatch):
    """The digest compared with the memo is the one the load then uses (the records folder is
    walked and read once per check, not once to miss the memo and again to load)."""
    _run(records)
    walked: list[tuple[Path, bool]] = []
    real = memo.tree_digest

    def spy(folder, keep=None, listing=None):
        walked.append((Path(folder), keep is not None))
        return real(folder, keep, listing)

    monkeypatch.setattr(memo, "tree_digest", spy)
    f = records / "stacks" / "cuda-13.0.yaml"
    f.write_text(f.read_text().replace("title: CUDA 13 stack", "title: The CUDA 13 stack"))
    ran = _count_checks(monkeypatch)
    assert _run(records)[0] == 0 and ran == [records]
    assert [w for w in walked if w[0] == records] == [(records, True)]
    walked.clear()
    assert _run(records)[0] == 0 and ran == [records]  # unchanged: from the memo, after the one walk
    assert [w for w in walked if w[0] == records] == [(records, True)]
