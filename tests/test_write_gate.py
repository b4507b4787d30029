"""The store's one write gate: every writer redacts through it, keeps logs as excerpts, and
creates files with the process umask (kb.store.save_record, kb.atomic)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import CAMPAIGN_RECORDS

from kb.cli import cli
from kb.models import Blocker
from kb.site.build import build_site
from kb.store import save_record, write_record

HF = "hf_Qm7rT2xVb9LpW4nZ8cK1dY6sA3fJ0gHeUo"
AWS = "AKIAIOSFODNN7EXAMPLE"
BEARER = "eyJhbGciOiJIUzI1NiJ9abcdef123456"
EMAIL = "alex.moreau@example.org"
USER = "alexmoreau"
SECRETS = (HF, AWS, BEARER, EMAIL, USER)


def leaky_log(tmp_path: Path, lines: int = 310) -> Path:
    """A 310-line server log holding an HF token, an AWS key, a Bearer header, a home path and an
    e-mail address, ending in the exception that names the failure."""
    body = [f"[rank0] step {i}: loading shard {i % 7} from /home/{USER}/models/kimi" for i in range(lines - 8)]
    body[3] = f"export HF_TOKEN={HF}"
    body[9] = f"aws configure set aws_access_key_id {AWS}"
    body[20] = f"curl -H 'Authorization: Bearer {BEARER}' https://hub.example.com/api"
    body[40] = f"report to {EMAIL}"
    body += ["Traceback (most recent call last):", f'  File "/home/{USER}/sglang/srt/x.py", line 9, in init',
             "    table[capability]", "KeyError: 12", "", f"see /home/{USER}/logs/run.log", "exit code 1", "done"]
    path = tmp_path / "err.log"
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


def no_secret_in(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


def run(root: Path, *args: str):
    return CliRunner().invoke(cli, ["--records", str(root), *args], catch_exceptions=False)


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    shutil.rmtree(root / "decisions")  # fewer pages to build
    return root


def test_kb_log_error_file_is_redacted_and_kept_as_an_excerpt(campaign, tmp_path):
    log = leaky_log(tmp_path)
    r = run(campaign, "log", "-t", "Symm mem retry", "-a", "retry", "-o", "failed", "--stack", "cuda-12.8",
            "--date", "2026-03-01", "--error-file", str(log), "--no-interactive")
    assert r.exit_code == 0, r.output
    no_secret_in(r.output)
    assert "kb log: redacted before writing:" in r.stderr and "token" in r.stderr
    path = campaign / "attempts" / "2026-03-01-symm-mem-retry.yaml"
    text = path.read_text(encoding="utf-8")
    no_secret_in(text)
    data = yaml.safe_load(text)
    assert "KeyError: 12" in data["error"]
    assert len(data["error"].splitlines()) <= 40  # an excerpt, not the 310 lines
    assert data["redacted"]["user"] >= 1 and data["redacted"]["secret"] >= 1  # the token in the head lines
    [source] = [s for s in data["source"] if s.get("field") == "error"]
    raw = log.read_bytes()
    import hashlib

    assert source["file"] == "err.log" and source["size"] == len(raw)
    assert source["sha256"] == hashlib.sha256(raw).hexdigest()
    site = build_site(campaign, site_dir=str(tmp_path / "site"))
    page = (site / "attempts" / "2026-03-01-symm-mem-retry" / "index.html").read_text(encoding="utf-8")
    no_secret_in(page)
    assert "KeyError: 12" in page and "Redacted by kb before writing" in page
    no_secret_in((site / "search" / "search_index.json").read_text(encoding="utf-8"))


def test_kb_log_dry_run_prints_what_would_be_written_redacted(campaign, tmp_path):
    r = run(campaign, "log", "-t", "x", "-a", "y", "-o", "failed", "--error-file", str(leaky_log(tmp_path)),
            "--dry-run", "--no-interactive")
    assert r.exit_code == 0, r.output
    no_secret_in(r.output)
    assert "<secret>" in r.stdout


def test_kb_new_redacts_through_the_same_gate(campaign):
    r = run(campaign, "new", "blocker", f"NCCL hang reported by {EMAIL}", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["redacted"] == {"email": 1}
    text = Path(data["path"]).read_text(encoding="utf-8")
    no_secret_in(text)
    assert yaml.safe_load(text)["redacted"] == {"email": 1}
    r = run(campaign, "new", "stack", "Local build", "--component", f"sglang=built in /home/{USER}/src")
    assert r.exit_code == 0, r.output
    no_secret_in(Path(r.stdout.strip()).read_text(encoding="utf-8"))


def test_kb_import_writes_through_the_gate(campaign, tmp_path):
    notebook = tmp_path / "notes.md"
    notebook.write_text(f"# 2026-03-01 run on 8x RTX PRO 6000\n\nRan with HF_TOKEN={HF}, mail {EMAIL}: "
                        "Kimi-K2.5 EAGLE-3 reached 91.2 tok/s.\n", encoding="utf-8")
    r = run(campaign, "import", str(notebook), "--campaign", "kimi-k25-eagle3-blackwell")
    assert r.exit_code == 0, r.output
    no_secret_in(r.output)
    written = [p for p in (campaign / "attempts").glob("2026-03-01-*.yaml")]
    assert written
    for p in written:
        text = p.read_text(encoding="utf-8")
        no_secret_in(text)
        assert "redacted:" in text


def test_a_title_holding_a_secret_gives_an_id_without_it(tmp_path):
    saved = save_record(tmp_path, Blocker(id=f"leak-{AWS.lower()}", title=f"leak {AWS}"))
    assert AWS.lower() not in saved.record.id and saved.path.name == "leak-secret.yaml"


def test_new_records_get_the_process_umask_and_a_rewrite_keeps_its_mode(tmp_path):
    """Case records-and-site/new-records-mode-0600: mkstemp's 0600 must not leak into records."""
    old = os.umask(0o002)
    try:
        path = write_record(tmp_path, Blocker(id="shared", title="on a shared host"))
        assert stat.S_IMODE(path.stat().st_mode) == 0o664
        os.umask(0o077)
        path2 = write_record(tmp_path, Blocker(id="private", title="private"))
        assert stat.S_IMODE(path2.stat().st_mode) == 0o600
        os.chmod(path, 0o640)
        write_record(tmp_path, Blocker(id="shared", title="rewritten"), overwrite=True)
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_kb_log_honours_the_umask_on_a_shared_host(campaign):
    old = os.umask(0o002)
    try:
        r = run(campaign, "log", "-t", "Shared host run", "-o", "neutral", "-a", "x", "--stack", "cuda-12.8",
                "--date", "2026-03-01", "--no-interactive")
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    path = campaign / "attempts" / "2026-03-01-shared-host-run.yaml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
