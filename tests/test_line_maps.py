"""Line maps of cached records kept by content (kb.store.lines): after one edit, ``kb check``
parses only the edited file and still puts every warning on the line a cold check gives."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from click.testing import CliRunner

import kb.store.read as store_read
from kb.cli import cli
from kb.store import cache as kb_cache
from kb.store import lines as kb_lines
from kb.store import load_records

NCCL = "attempts/2026-02-23-nccl-tree.yaml"  # 23 lines: 'notes: TODO' goes on line 24
SYMM = "attempts/2026-02-23-torch-symm-mem.yaml"  # 21 lines: 'notes: TODO' on line 22
BASELINE = "attempts/2026-02-19-baseline-tp8.yaml"


def _check(root: Path, cache: bool = True, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    if not cache:
        assert monkeypatch is not None
        with monkeypatch.context() as m:
            m.setenv("KB_CACHE", "off")
            return _check(root)
    result = CliRunner().invoke(cli, ["--records", str(root), "check"], prog_name="kb")
    return result.exit_code, result.output


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every YAML parse of a record file by the store append its path to the returned list."""
    parsed: list[str] = []
    real = store_read.parse_document

    def spy(text, rel):
        parsed.append(rel)
        return real(text, rel)

    monkeypatch.setattr(store_read, "parse_document", spy)
    return parsed


def _warned(records: Path) -> Path:
    """Give two attempts an unfilled placeholder (a warning each) and return the map file."""
    for rel in (NCCL, SYMM):
        f = records / rel
        f.write_text(f.read_text() + "notes: TODO\n")
    path = kb_cache.cache_path(records)
    assert path is not None
    return path / kb_lines.FILE_NAME


WARN_NCCL = "records/attempts/2026-02-23-nccl-tree.yaml:24: notes: warning: still holds kb's 'TODO' placeholder"
WARN_SYMM = "records/attempts/2026-02-23-torch-symm-mem.yaml:22: notes: warning: still holds kb's 'TODO' placeholder"


def test_after_one_edit_only_that_file_is_parsed_and_the_lines_are_a_cold_checks(records, monkeypatch):
    maps_file = _warned(records)
    first = _check(records)
    assert first[0] == 0 and WARN_NCCL in first[1] and WARN_SYMM in first[1] and "21 records OK" in first[1]
    kept = kb_lines.read_line_maps(maps_file)
    assert sorted(kept) == [f"records/{NCCL}", f"records/{SYMM}"]  # the records whose lines were asked for
    assert kept[f"records/{NCCL}"][1][("notes",)] == 24

    # an edit elsewhere: one parse (the edited file), the same report as a check without any cache
    f = records / BASELINE
    f.write_text(f.read_text().replace("title: Baseline", "title: The baseline"))
    parsed = _count_parses(monkeypatch)
    again = _check(records)
    assert parsed == [f"records/{BASELINE}"]
    assert again == first == _check(records, cache=False, monkeypatch=monkeypatch)

    # an edit that moves a warning down two lines: only that file parsed, its new line reported
    f = records / NCCL
    f.write_text("# tried on 2026-02-23\n# see the seeds\n" + f.read_text())
    parsed.clear()
    moved = _check(records)
    assert parsed == [f"records/{NCCL}"]
    assert WARN_NCCL.replace(":24:", ":26:") in moved[1] and WARN_SYMM in moved[1] and WARN_NCCL not in moved[1]
    assert moved == _check(records, cache=False, monkeypatch=monkeypatch)
    assert kb_lines.read_line_maps(maps_file)[f"records/{NCCL}"][1][("notes",)] == 26  # the edited file's map replaced


def test_maps_of_unchanged_files_stay_and_those_of_edited_or_deleted_files_go(records):
    maps_file = _warned(records)
    _check(records)
    assert sorted(kb_lines.read_line_maps(maps_file)) == [f"records/{NCCL}", f"records/{SYMM}"]
    # the placeholder of one is filled: its warning goes, its edited file's map with it; the other stays
    f = records / SYMM
    f.write_text(f.read_text().replace("notes: TODO", "notes: done"))
    code, out = _check(records)
    assert code == 0 and WARN_SYMM.split(":")[0] not in out and WARN_NCCL in out
    assert sorted(kb_lines.read_line_maps(maps_file)) == [f"records/{NCCL}"]
    stamp = maps_file.stat().st_mtime_ns, maps_file.stat().st_ino
    # an unrelated edit changes nothing in the map file: it is not rewritten
    f = records / BASELINE
    f.write_text(f.read_text().replace("title: Baseline", "title: The baseline"))
    _check(records)
    assert (maps_file.stat().st_mtime_ns, maps_file.stat().st_ino) == stamp
    (records / NCCL).unlink()
    code, out = _check(records)
    assert "nccl-tree" in out and code == 1  # others refer to it: the deletion is reported as an unknown id
    assert "records/" + NCCL not in kb_lines.read_line_maps(maps_file)


def _frame(payload: bytes) -> bytes:
    """``payload`` framed as kb writes a line-map file (header, fingerprint, CRC-32)."""
    return kb_lines.FORMAT + kb_cache._header() + kb_cache._check(payload) + payload


class _Boom:
    def __reduce__(self):
        return (print, ("planted code ran",))


@pytest.mark.parametrize("how", ["garbage", "foreign header", "torn", "a global", "wrong shape", "line zero",
                                 "other digest", "wrong line, right frame"])
def test_a_damaged_foreign_or_planted_map_file_is_not_trusted(records, monkeypatch, how, capsys):
    maps_file = _warned(records)
    first = _check(records)
    good = kb_lines.read_line_maps(maps_file)
    rel = f"records/{NCCL}"
    digest, lines = good[rel]
    if how == "garbage":
        maps_file.write_bytes(b"\x00\xff not a map")
    elif how == "foreign header":
        maps_file.write_bytes(maps_file.read_bytes().replace(kb_lines.FORMAT, b"kb-line-maps 0\n", 1))
    elif how == "torn":
        maps_file.write_bytes(maps_file.read_bytes()[:-7])
    elif how == "a global":
        maps_file.write_bytes(_frame(pickle.dumps({rel: (digest, _Boom())})))
    elif how == "wrong shape":
        maps_file.write_bytes(_frame(pickle.dumps({rel: (digest, {("notes",): "24"})})))
    elif how == "line zero":
        maps_file.write_bytes(_frame(pickle.dumps({rel: (digest, {**lines, ("notes",): 0})})))
    elif how == "other digest":  # a map kept for other bytes of that file is never used
        maps_file.write_bytes(_frame(pickle.dumps({rel: (b"\x01" * 32, {**lines, ("notes",): 3})})))
    else:  # a well-framed file is believed only for the bytes it names: here the true ones
        maps_file.write_bytes(_frame(pickle.dumps({rel: (digest, {**lines, ("notes",): 3})})))
    parsed = _count_parses(monkeypatch)
    res = load_records(records)
    line = res.records.problem("2026-02-23-nccl-tree", ("notes",), "x").line
    assert "planted code ran" not in capsys.readouterr().out
    if how == "wrong line, right frame":
        assert line == 3 and parsed == []  # the cache's own trust model: framed by kb, for these bytes
    else:
        assert line == 24 and parsed == [rel]  # not trusted: the file is parsed again for its lines
    assert first[0] == 0


def test_a_file_changed_after_loading_is_located_but_its_map_not_kept(records):
    maps_file = _warned(records)
    _check(records)
    maps_file.unlink()
    res = load_records(records)
    f = records / NCCL
    f.write_text("# a comment\n" + f.read_text())  # changed between the load and the question
    assert res.records.problem("2026-02-23-nccl-tree", ("notes",), "x").line == 25  # as before: the file now
    assert kb_lines.save_line_maps(res.records.origins) == 0 and not maps_file.exists()


def test_without_a_cache_no_map_is_kept(records, monkeypatch):
    _warned(records)
    monkeypatch.setenv("KB_CACHE", "off")
    code, out = _check(records)
    assert code == 0 and WARN_NCCL in out
    assert all(o.line_maps is None for o in load_records(records).records.origins.values())
    assert not (records.parent / ".kb-cache").exists()


@pytest.mark.parametrize("lines, ok", [
    ({}, True), ({("notes",): 24, ("fixed_by", 0, "cuda"): 7, (): 1}, True),
    ({("notes",): 0}, False), ({("notes",): True}, False), ({("notes",): 2.0}, False), ({("notes",): "2"}, False),
    ({"notes": 2}, False), ({("notes", (0,)): 2}, False), ({("notes", b"x"): 2}, False), ({("notes", True): 2}, False),
    ([(("notes",), 2)], False)])
def test_only_maps_of_field_paths_to_positive_lines_pass(lines, ok):
    assert kb_lines._is_line_map(lines) is ok


def test_a_records_json_is_dumped_once_per_check_and_again_when_the_record_is_replaced(records, monkeypatch):
    """kb check asks of every record whether its text holds a link and whether it holds 'TODO':
    one JSON dump per record whose file could hold either (RecordSet.json_of, RecordSet.quiet),
    not two, and none for the others."""
    from kb.models import Record

    _warned(records)
    dumped: list[str] = []
    real = Record.model_dump_json

    def spy(self, **kw):
        dumped.append(self.id)
        return real(self, **kw)

    monkeypatch.setattr(Record, "model_dump_json", spy)
    code, out = _check(records)
    assert code == 0 and WARN_NCCL in out and WARN_SYMM in out
    rs = load_records(records).records
    loud = sorted(set(rs.records) - set(rs.quiet))  # files holding '](', 'TODO' or a backslash
    assert loud == ["2026-02-23-nccl-tree", "2026-02-23-torch-symm-mem"]
    assert sorted(dumped) == loud  # each of them once, none of the 19 quiet records
    rid = "2026-02-23-nccl-tree"
    dumped.clear()
    assert '"notes":"TODO"' in rs.json_of(rid) and rs.json_of(rid) == rs.json_of(rid) and dumped == [rid] * 3
    assert rs._json == {}  # not kept unless asked (a site build asks once per record)
    rs.keep_json = True
    dumped.clear()
    assert '"notes":"TODO"' in rs.json_of(rid) and rs.json_of(rid) is rs.json_of(rid) and dumped == [rid]
    rs.records[rid] = rs.records[rid].model_copy(update={"notes": "done"})
    assert '"notes":"done"' in rs.json_of(rid) and dumped == [rid, rid]  # replaced: dumped again
