"""The store's cache of validated records (kb.store.cache): keyed by content, never trusted blindly."""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path

import pytest

import kb.store.read as store_read
from kb.store import cache as kb_cache
from kb.store import load_records

CAMPAIGN = Path(__file__).parent / "fixtures" / "campaign"
BAD_ATTEMPT = ("title: Bad\ndate: 2026-03-01\ncampaign: kimi-k25-eagle3-blackwell\napproach: x\n"
               "outcome: failed\nblocked_byy: []\n")


def _cache_file(root: Path) -> Path:
    """The cache shard folder of ``root``."""
    path = kb_cache.cache_path(root)
    assert path is not None
    return path


STACK = "records/stacks/cuda-13.0.yaml"


def _shard_file(root: Path, rel: str = STACK) -> Path:
    """The shard file holding the entry of ``rel``."""
    return kb_cache.shard_path(_cache_file(root), kb_cache.shard_of(rel))


def _entries(root: Path) -> dict:
    """Every entry of every shard of ``root``'s cache."""
    out: dict = {}
    for n in range(kb_cache.SHARDS):
        out.update(kb_cache.read_entries(kb_cache.shard_path(_cache_file(root), n)))
    return out


def _stamps(root: Path) -> dict[str, tuple[int, int]]:
    """Shard file name → (inode, mtime_ns): an atomic rewrite changes the inode."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in _cache_file(root).glob("*.pickle")}


def _summary(root: Path) -> tuple[dict[str, str], list[str]]:
    res = load_records(root)
    return {rid: r.title for rid, r in res.records.records.items()}, [str(p) for p in res.problems]


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make parsing a record file record its path instead of parsing (returns that list)."""
    parsed: list[str] = []
    real = store_read.parse_record

    def spy(text, rel, folder, stem):
        parsed.append(rel)
        return real(text, rel, folder, stem)

    monkeypatch.setattr(store_read, "parse_record", spy)
    return parsed


def test_the_cache_is_written_beside_records_and_reused(records, monkeypatch):
    first = _summary(records)
    assert len(first[0]) == sum(1 for _ in records.rglob("*.yaml")) and first[1] == []
    path = _cache_file(records)
    assert path.parent == records.parent / ".kb-cache" and path.name.startswith("records-")
    assert path.is_dir() and (path.parent / ".gitignore").read_text().splitlines()[-1] == "*"
    assert not list(records.rglob(".kb-cache"))  # never inside records/
    stamp = _stamps(records)
    # one file per shard that holds an entry: the fixture's 21 files fall into 16 of the 32
    assert sorted(stamp) == [f"{n:02d}.pickle" for n in (0, 1, 7, 8, 12, 13, 15, 16, 17, 18, 19, 20, 25, 28, 29, 31)]
    parsed = _no_parsing(monkeypatch)
    assert _summary(records) == first
    assert parsed == []  # every record came from the cache
    assert _stamps(records) == stamp  # nothing changed: nothing rewritten
    # a record from the cache still locates its fields: the line map is parsed on demand
    res = load_records(records)
    origin = res.records.origins["cuda-13.0"]
    assert origin._doc is None
    assert res.records.problem("cuda-13.0", ("components", "cuda"), "x").line == 4
    assert origin.file == (records / "stacks" / "cuda-13.0.yaml").resolve()
    assert origin._doc is not None and origin.doc.lines[("components", "cuda")] == 4  # parsed for the line only
    assert parsed == []


def test_an_edit_with_the_same_mtime_and_size_is_validated_again(records, monkeypatch):
    _summary(records)
    f = records / "stacks" / "cuda-13.0.yaml"
    text = f.read_text()
    st = f.stat()
    edited = text.replace("title: CUDA 13 stack", "title: CUDA 13 stacK")
    assert edited != text and len(edited) == len(text)
    f.write_text(edited)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime: only the content differs
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    parsed = _no_parsing(monkeypatch)
    titles, problems = _summary(records)
    assert titles["cuda-13.0"].startswith("CUDA 13 stacK")
    assert problems == [] and parsed == ["records/stacks/cuda-13.0.yaml"]


def test_a_deleted_file_leaves_the_cache(records):
    _summary(records)
    assert STACK in kb_cache.read_entries(_shard_file(records))
    (records / "stacks" / "cuda-13.0.yaml").unlink()
    titles, problems = _summary(records)
    assert "cuda-13.0" not in titles
    assert STACK not in kb_cache.read_entries(_shard_file(records))
    assert len(_entries(records)) == sum(1 for _ in records.rglob("*.yaml"))


def test_problems_are_reported_on_every_load(records, monkeypatch):
    (records / "attempts" / "2026-03-01-bad.yaml").write_text(BAD_ATTEMPT)
    (records / "attempts" / "latin1.yaml").write_bytes(b"title: caf\xe9\n")
    (records / "attempts" / "broken-yaml.yaml").write_text("title: [unclosed\n")
    first = _summary(records)[1]
    assert first[0] == ("records/attempts/2026-03-01-bad.yaml:6: blocked_byy: unknown key 'blocked_byy'; "
                        "did you mean 'blocked_by'? (valid keys: " + first[0].split("(valid keys: ")[1])
    assert first[1].startswith("records/attempts/broken-yaml.yaml:1: invalid YAML: ")
    assert first[2] == ("records/attempts/latin1.yaml:1: not UTF-8 (byte 0xe9 at offset 10); "
                        "save the file as UTF-8")
    assert len(first) == 3
    parsed = _no_parsing(monkeypatch)
    assert _summary(records)[1] == first  # from the cache: the same problems, same lines
    assert parsed == []
    res = load_records(records)
    assert {"2026-03-01-bad", "latin1", "broken-yaml"} <= res.records.broken


def test_a_duplicate_id_is_reported_from_the_cache_with_its_line(records):
    (records / "blockers" / "cuda-13.0.yaml").write_text("# same id as a stack\n\nid: cuda-13.0\ntitle: our bug\n"
                                                        "signatures: ['our very own error']\n")
    first = _summary(records)[1]
    assert first == ["records/blockers/cuda-13.0.yaml:3: id: duplicate id 'cuda-13.0' (also records/stacks/cuda-13.0.yaml); "
                     "ids are unique across all kinds: rename one"]  # line 3: where the id is, read again on demand
    assert _summary(records)[1] == first


def _damage(path: Path, how: str, tmp_path: Path) -> None:
    data = path.read_bytes()
    head = kb_cache.FORMAT + kb_cache.fingerprint() + b"\n"

    def framed(payload: bytes) -> bytes:  # with the right checksum: what stops it must be the unpickler's checks
        return head + kb_cache._check(payload) + payload
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(framed(b"\x80\x05not a pickle at all"))
    elif how == "foreign":  # another kb's cache: a valid pickle under another fingerprint, with lies in it
        entries = kb_cache.read_entries(path)
        lied = {rel: (digest, rec.model_copy(update={"title": "LIE"}) if rec else rec, probs)
                for rel, (digest, rec, probs) in entries.items()}
        payload = pickle.dumps(lied)
        path.write_bytes(kb_cache.FORMAT + b"0" * 32 + b"\n" + kb_cache._check(payload) + payload)
    elif how == "old-format":
        path.write_bytes(b"kb-record-cache 3\n" + kb_cache.fingerprint() + b"\n" + data[len(head) + 9:])
    elif how == "torn":  # the right header and checksum line, a payload damaged after them (a crash mid-write)
        path.write_bytes(data[:-40] + bytes(40))
    elif how == "wrong-shape":  # right header, allowed classes, but not entries kb writes
        path.write_bytes(framed(pickle.dumps({"records/stacks/cuda-13.0.yaml": ("not bytes", None, ())})))
    elif how == "lying-digest":  # the right shape with a record under another file's name: the hash decides
        entries = kb_cache.read_entries(path)
        rel = "records/stacks/cuda-13.0.yaml"
        digest, rec, probs = entries[rel]
        entries[rel] = (b"\0" * 32, rec.model_copy(update={"title": "LIE"}), probs)
        path.write_bytes(framed(pickle.dumps(entries)))
    elif how == "planted":  # a pickle that would run code if it were trusted
        marker = tmp_path / "pwned"

        class Evil:
            def __reduce__(self):
                return (os.system, (f"touch {marker}",))

        path.write_bytes(framed(pickle.dumps({"records/stacks/cuda-13.0.yaml": Evil()})))
    elif how == "planted-in-kb":  # a callable that lives in an allowed module but is no model
        path.write_bytes(framed(_global_pickle("kb.models", "parse_version", "1")))
    else:
        raise AssertionError(how)


def _global_pickle(module: str, name: str, arg: str) -> bytes:
    """A protocol-4 pickle calling ``module.name(arg)`` when loaded."""
    def s(x: str) -> bytes:
        b = x.encode()
        return b"\x8c" + bytes([len(b)]) + b

    return b"\x80\x04" + s(module) + s(name) + b"\x93" + s(arg) + b"\x85R."


DAMAGES = ["truncated", "empty", "garbage", "foreign", "old-format", "torn", "wrong-shape", "lying-digest",
           "planted", "planted-in-kb"]


@pytest.mark.parametrize("how", DAMAGES)
def test_a_corrupt_or_foreign_cache_is_ignored_and_rebuilt(records, how, tmp_path, monkeypatch):
    expected = _summary(records)
    path = _shard_file(records)
    others = {name: stamp for name, stamp in _stamps(records).items() if name != path.name}
    _damage(path, how, tmp_path)
    parsed = _no_parsing(monkeypatch)
    assert _summary(records) == expected  # nothing of the damaged file was believed
    assert not (tmp_path / "pwned").exists()
    head = kb_cache.FORMAT + kb_cache.fingerprint() + b"\n"
    assert path.read_bytes().startswith(head)  # rebuilt
    rebuilt = kb_cache.read_entries(path)
    in_shard = {rel for p in records.rglob("*.yaml")
                if kb_cache.shard_of(rel := f"records/{p.relative_to(records).as_posix()}") == kb_cache.shard_of(STACK)}
    assert set(rebuilt) == in_shard == {STACK}
    assert all(e[1].title != "LIE" for e in rebuilt.values())
    # the damaged shard alone was parsed again and rewritten; the other shards were trusted as they were
    assert parsed == [STACK]
    assert {name: stamp for name, stamp in _stamps(records).items() if name != path.name} == others


def test_the_unpickler_refuses_what_is_not_a_kb_model():
    import io

    for module, name in [("os", "system"), ("builtins", "eval"), ("kb.models", "parse_version"),
                         ("kb.models", "re"), ("kb.store.cache", "RecordCache")]:
        with pytest.raises(pickle.UnpicklingError, match="not allowed"):
            kb_cache._Unpickler(io.BytesIO(_global_pickle(module, name, "x"))).load()
    from kb.models import Attempt, Outcome

    assert kb_cache._Unpickler(io.BytesIO(b"")).find_class("kb.models", "Attempt") is Attempt
    assert kb_cache._Unpickler(io.BytesIO(b"")).find_class("kb.models", "Outcome") is Outcome


def test_the_cache_can_be_turned_off(records, monkeypatch):
    monkeypatch.setenv("KB_CACHE", "off")
    assert kb_cache.cache_path(records) is None
    parsed = _no_parsing(monkeypatch)
    _summary(records)
    _summary(records)
    assert not (records.parent / ".kb-cache").exists()
    assert len(parsed) == 2 * sum(1 for _ in records.rglob("*.yaml"))  # parsed every time


def test_kb_cache_dir_moves_the_cache(records, monkeypatch, tmp_path):
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "elsewhere"))
    _summary(records)
    assert not (records.parent / ".kb-cache").exists()
    (found,) = (tmp_path / "elsewhere").glob("records-*")
    assert found == _cache_file(records) and found.is_dir()


def test_a_cache_folder_that_cannot_be_written_costs_nothing(records, monkeypatch):
    if os.geteuid() == 0:
        # root writes through permissions: make the cache folder's place a file instead
        (records.parent / ".kb-cache").write_text("not a folder")
    else:
        (records.parent / ".kb-cache").mkdir()
        (records.parent / ".kb-cache").chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        first = _summary(records)
        assert first[1] == [] and len(first[0]) > 10
        assert _summary(records) == first
    finally:
        if (records.parent / ".kb-cache").is_dir():
            (records.parent / ".kb-cache").chmod(stat.S_IRWXU)


def _use_catalogs(records: Path, names: str) -> None:
    camp = records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    camp.write_text(camp.read_text(encoding="utf-8") + f"catalogs: [{names}]\n", encoding="utf-8")


def test_a_shipped_catalog_is_cached_in_the_campaigns_cache_folder(records, monkeypatch):
    from kb.catalog import SHIPPED
    from kb.pipeline import load

    before = sorted(p.name for p in SHIPPED.rglob("*"))
    _use_catalogs(records, "blackwell")
    first = load(records)
    assert first.records.catalog_of, "the catalog's records were merged"
    caches = sorted((records.parent / ".kb-cache").glob("records-*"))
    assert len(caches) == 2  # the campaign's records and the catalog, side by side
    catalog_cache = kb_cache.cache_path(SHIPPED / "blackwell", cache_for=records)
    assert catalog_cache in caches
    assert kb_cache.cache_path(SHIPPED / "blackwell") is None  # never inside the package
    assert sorted(p.name for p in SHIPPED.rglob("*")) == before  # nothing written into the package
    parsed = _no_parsing(monkeypatch)
    again = load(records)
    assert parsed == []  # the catalog came from the cache too
    assert [str(p) for p in again.problems] == [str(p) for p in first.problems]
    assert again.records.catalog_of == first.records.catalog_of
    rid = next(iter(again.records.catalog_of))
    origin = again.records.origins[rid]
    assert Path(origin.path).is_absolute() and origin.line("title") >= 1  # still located, parsed on demand


def test_a_catalog_folder_of_ones_own_is_cached_beside_the_campaigns_records(records, tmp_path):
    from kb.pipeline import load

    catalog = tmp_path / "team-catalog"
    (catalog / "blockers").mkdir(parents=True)
    (catalog / "blockers" / "team-blocker.yaml").write_text("title: our bug\nsignatures: ['our very own error']\n")
    _use_catalogs(records, "../team-catalog")
    first = load(records)
    assert first.problems == [] and first.records.catalog_of == {"team-blocker": "../team-catalog"}
    assert list(kb_cache.cache_path(catalog, cache_for=records).glob("*.pickle"))
    assert not (catalog / ".kb-cache").exists()


def test_the_shard_of_a_file_is_fixed_by_its_path():
    assert kb_cache.SHARDS == 32
    assert kb_cache.shard_of(STACK) == 15  # CRC-32 of the path, modulo 32
    assert kb_cache.shard_of("records/attempts/x.yaml") == 12
    assert kb_cache.shard_path(Path("c/records-ab"), 7) == Path("c/records-ab/07.pickle")


def test_an_edit_rewrites_only_its_shard(records, monkeypatch):
    _summary(records)
    before = _stamps(records)
    f = records / "stacks" / "cuda-13.0.yaml"
    f.write_text(f.read_text().replace("title: CUDA 13 stack", "title: CUDA 13 stack, edited"))
    parsed = _no_parsing(monkeypatch)
    titles, problems = _summary(records)
    assert titles["cuda-13.0"].startswith("CUDA 13 stack, edited") and problems == []
    assert parsed == [STACK]  # every other record came from its shard
    after = _stamps(records)
    changed = sorted(name for name in after if after[name] != before.get(name))
    assert changed == ["15.pickle"]
    assert kb_cache.read_entries(_shard_file(records))[STACK][1].title.startswith("CUDA 13 stack, edited")


def test_a_new_and_a_deleted_file_rewrite_their_shards_only(records):
    _summary(records)
    before = _stamps(records)
    (records / "attempts" / "x.yaml").write_text(BAD_ATTEMPT)  # shard 12
    (records / "stacks" / "cuda-13.0.yaml").unlink()  # shard 15
    _summary(records)
    after = _stamps(records)
    assert sorted(name for name in after if after[name] != before.get(name)) == ["12.pickle", "15.pickle"]
    assert "records/attempts/x.yaml" in kb_cache.read_entries(_shard_file(records, "records/attempts/x.yaml"))
    assert kb_cache.read_entries(_shard_file(records)) == {}


def test_the_single_file_cache_of_kb_before_shards_is_removed(records):
    old = _cache_file(records).with_name(_cache_file(records).name + ".pickle")
    old.parent.mkdir(parents=True)
    old.write_bytes(b"kb-record-cache 2\nold")
    _summary(records)
    assert not old.exists() and _cache_file(records).is_dir()


def test_shards_are_written_without_waiting_for_the_disk(records, monkeypatch):
    """The cache is written atomically but not fsynced (a torn shard fails its CRC and is rebuilt:
    the 'torn' damage above); kb's other atomic writes still fsync the file and its folder."""
    import kb.atomic

    _summary(records)  # the cache folder and its .gitignore (written durably, once)
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(kb.atomic.os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    for f in (records / "stacks").glob("*.yaml"):
        f.write_text(f.read_text() + "# edited\n")
    _summary(records)
    assert synced == [] and len(list(_cache_file(records).glob("*.pickle"))) == 16
    kb.atomic.write_bytes_atomic(records.parent / "other.bin", b"x")
    assert len(synced) == 2


def test_a_load_uses_the_bytes_read_ahead_and_counts_the_files_it_read_itself(records):
    from kb.store import Prefetched
    from kb.store.memo import tree_digest

    files: dict[str, bytes] = {}
    tree_digest(records, files)
    stack = records / "stacks" / "cuda-13.0.yaml"
    assert files[str(stack)] == stack.read_bytes() and len(files) == 21
    stack.write_text(stack.read_text().replace("title: CUDA 13 stack", "title: edited on disk"))
    ahead = Prefetched(files)
    res = load_records(records, prefetched=ahead)
    assert res.records.records["cuda-13.0"].title.startswith("CUDA 13 stack")  # the bytes read ahead
    assert ahead.missed == 0 and files == {}  # every file taken from them, none read again
    (records / "attempts" / "x.yaml").write_text(BAD_ATTEMPT)
    nothing = Prefetched({})
    res = load_records(records, prefetched=nothing)
    assert nothing.missed == 22 and res.records.records["cuda-13.0"].title.startswith("edited on disk")


def test_the_fingerprint_reads_no_package_metadata():
    """kb's version is read from the package metadata (importlib.metadata and a scan of the
    installed distributions): the cache's fingerprint hashes the deciding modules' sources
    instead, and does not ask for it."""
    import subprocess
    import sys

    code = ("import sys; from kb.store import cache; cache.fingerprint(); "
            "print('importlib.metadata' in sys.modules, '__version__' in vars(sys.modules['kb']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
