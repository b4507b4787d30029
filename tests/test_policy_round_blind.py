"""Blind round on kb's redaction policy, publishing and messages.

Written from the README's description only (the redaction, publish, validation and id modules were
not read). Every secret below is planted once, through one of kb's ways in, and then looked for
everywhere kb writes or prints: the records, every file of the built site, the SQLite export and
the terminal.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import pytest
import yaml

MAIN = Path(__file__).resolve().parent.parent
RECORDS = MAIN / "records"
PLACEHOLDER = "<secret>"
DATE = "2026-03-10"


def kb(records: Path, *args: str, cwd: Path | None = None, check: bool = False) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "kb", "--records", str(records), *args],
        cwd=str(cwd or records.parent),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "KB_JOBS": "1"},
        timeout=300,
    )
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def copy_records(dest: Path) -> Path:
    records = dest / "records"
    shutil.copytree(RECORDS, records)
    return records


def tree_text(root: Path) -> str:
    parts = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            parts.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(parts)


def tree_hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def written_path(records: Path, proc: subprocess.CompletedProcess) -> Path | None:
    for line in proc.stdout.splitlines():
        line = line.strip()
        if line.endswith(".yaml"):
            p = Path(line)
            if not p.is_absolute():
                p = records.parent / p
            if p.exists():
                return p
    return None


# --------------------------------------------------------------------------- planted secrets


def _jwt() -> str:
    def b64(d: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()

    sig = base64.urlsafe_b64encode(hashlib.sha256(b"kb-blind-round").digest()).rstrip(b"=").decode()
    return f"{b64({'alg': 'HS256', 'typ': 'JWT'})}.{b64({'sub': 'bench-runner', 'iat': 1767225600})}.{sig}"


AWS_SECRET = "Tq3/vX9+Lm2Pz8Rk5Wj1Hn7Yb4Gc6Fd0Se2Ua9Ko"
assert len(AWS_SECRET) == 40
GHP = "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ1234567"
assert len(GHP) == 40
GHP_COMPONENT = "ghp_" + "Comp0nentT0kenABCDEFGHIJKLMNOPQRSTUV"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
HF = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm12345678"
SK = "sk-proj-Zx81Ka9Lq2Wm7Nb4Vc6Xe3Rt5Yu0Io8Pa"
XOXB = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
GLPAT = "glpat-Xy7Kq2Lm9Np4Rs6Tv8Wz"
AKIA = "AKIAQ3EXAMPLE7ZX9PLM"
JWT = _jwt()

RSA_BODY = "MIIEowIBAAKCAQEArsaBodyLineOne0123456789abcdefABCDEF"
EC_BODY = "MHcCAQEEIEcBodyLineNoEnd0123456789abcdefABCDEFghij"
SSH_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQsshBodyQQ"
PGP_BODY = "lQOYBGRpgpBodyLine0123456789ABCDEFabcdefXYZuvw"
ENC_BODY = "MIIFHDBOBgkqhkiG9w0BBQ0wQTApencBodyLine9876543210"


def _log(title: str, *extra: str) -> list[str]:
    return ["log", "--title", title, "--approach", "planted", "--outcome", "inconclusive", "--date", DATE,
            "--no-interactive", *extra]


# name -> (argv builder taking the tmp dir, the values that must vanish)
PLANTS: dict[str, tuple] = {
    "env-password": (lambda d: _log("Plant env password", "--env", "POSTGRES_PASSWORD=pgPw_Zr83kq!x"),
                     ["pgPw_Zr83kq!x"]),
    "env-credentials": (lambda d: _log("Plant env credentials", "--env", "GCP_CREDENTIALS=gcpcredBlob77Qx"),
                        ["gcpcredBlob77Qx"]),
    "flag-api-key": (lambda d: _log("Plant flag api key", "--flag", "--api-key ak_live_93jFdq2"),
                     ["ak_live_93jFdq2"]),
    "flag-token-equals": (lambda d: _log("Plant flag token", "--flag", "--auth-token=tokEq88Vb2"),
                          ["tokEq88Vb2"]),
    "command-url-credentials": (
        lambda d: _log("Plant url credentials", "--command",
                       "pip install --index-url https://builder:urlPw4471xQ@pypi.corp.example/simple torch"),
        ["urlPw4471xQ"]),
    "command-hf-token": (lambda d: _log("Plant hf token", "--command", f"huggingface-cli login --token {HF}"),
                         [HF]),
    "title-ghp": (lambda d: _log(f"Rotate {GHP} on the runner"), [GHP]),
    "notes-yaml-and-ini": (
        lambda d: _log("Plant yaml ini", "--notes",
                       "server.yaml had:\n\n    client_secret: yamlCs_5521abz\n\nand auth.ini had\n\n"
                       "    [auth]\n    access_token = iniTok_6161zz\n"),
        ["yamlCs_5521abz", "iniTok_6161zz"]),
    "notes-json-camel": (
        lambda d: _log("Plant json camel", "--notes",
                       'The config was {"clientSecret": "jsonCs-77qpl0", "dbPassword": "camelPw_3390r"}.'),
        ["jsonCs-77qpl0", "camelPw_3390r"]),
    "error-pem-rsa": (
        lambda d: _log("Plant rsa key", "--error",
                       "ssl.SSLError: bad key\n-----BEGIN RSA PRIVATE KEY-----\n" + RSA_BODY + "\n"
                       + RSA_BODY[::-1] + "\n-----END RSA PRIVATE KEY-----\nretrying"),
        [RSA_BODY, RSA_BODY[::-1]]),
    "error-file-ec-no-end": (
        lambda d: _log("Plant ec key", "--error-file", str(d / "ec.log")),
        [EC_BODY, EC_BODY[::-1]]),
    "error-file-nested-yaml": (
        lambda d: _log("Plant nested config", "--error-file", str(d / "config-dump.log")),
        ["dbNestPw_4040k"]),
    "notes-openssh": (
        lambda d: _log("Plant openssh", "--notes",
                       "deploy key:\n\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + SSH_BODY + "\n"
                       "-----END OPENSSH PRIVATE KEY-----\n"),
        [SSH_BODY]),
    "notes-pgp-no-end": (
        lambda d: _log("Plant pgp", "--notes",
                       "signing key\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + PGP_BODY + "\n=Ab3x\n"),
        [PGP_BODY]),
    "notes-encrypted-key": (
        lambda d: _log("Plant encrypted key", "--notes",
                       "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + ENC_BODY + "\n-----END ENCRYPTED PRIVATE KEY-----"),
        [ENC_BODY]),
    "notes-bare-aws-secret": (lambda d: _log("Plant aws secret", "--notes", f"it printed {AWS_SECRET} and stopped"),
                              [AWS_SECRET]),
    "notes-akia-and-jwt": (lambda d: _log("Plant akia jwt", "--notes", f"key id {AKIA}; cookie {JWT}"),
                           [AKIA, JWT]),
    "error-sk": (lambda d: _log("Plant openai", "--error",
                                f"openai.AuthenticationError: Incorrect API key provided: {SK}."), [SK]),
    "notes-cli-password": (lambda d: _log("Plant cli password", "--notes",
                                          "ran `mysql --password=cliPw_5512 -h db`"), ["cliPw_5512"]),
    "component-token": (lambda d: _log("Plant component", "--component", f"mytool={GHP_COMPONENT}"),
                        [GHP_COMPONENT]),
    "dry-run-print": (lambda d: _log("Plant dry run", "-n", "--notes", "sessionToken: dryRunTok_4417"),
                      ["dryRunTok_4417"]),
    "new-blocker-xoxb": (lambda d: ["new", "blocker", f"Slack webhook {XOXB} rejected"], [XOXB]),
    "new-decision-glpat": (lambda d: ["new", "decision", "--date", DATE, f"Rotate {GLPAT} for CI"], [GLPAT]),
    "import-notebook": (lambda d: ["import", str(d / "notebook.md"), "--all"],
                        ["nbOpenAiKey_55xq", "nbUrlPw_909z"]),
    "import-claude-jsonl": (lambda d: ["import", str(d / "session.jsonl"), "--all"],
                            [GITHUB_PAT, "jsonPassw0rdQ7"]),
    "import-adr": (lambda d: ["import", "--format", "adr", str(d / "adr")],
                   ["adrPw_Tr0ub4dor3", "adrYamlKey_8812", "MIIEpAIBAAKCAQEAadrKeyBody1234567890abcdefgh"]),
}

NOTEBOOK = """# Llama 8B serving notebook

Platform: 1x H100 80GB, torch 2.10.0+cu128.

## 2026-03-02 — baseline with tp 1

Run on commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3, GPU 0000:3b:00.0, run 6f1c2b8e-3d4a-4f5b-9c7d-0e1f2a3b4c5d.
Weights sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, md5 d41d8cd98f00b204e9800998ecf8427e.
Config at /workspace/checkpoints/step_004000/model.safetensors, max_tokens: 512, num_key_value_heads: 8, tokenizer: meta-llama/Llama-3.1-8B.
Nightly 2.11.0.dev20260220+cu130 and flashinfer 0.6.18rc2 with Qwen3MoeForCausalLMWithSpeculativeDecodingHead.
Cloned https://ci:nbUrlPw_909z@git.example.com/serving.git first.

```sh
export OPENAI_API_KEY=nbOpenAiKey_55xq
python -m sglang.launch_server --model meta-llama/Llama-3.1-8B --tp 1
```

```
Output token throughput (tok/s): 1520.4
Mean TTFT (ms): 41.2
```

Baseline is **1520 tok/s**.
"""

ADR = """# Use a private network for the GPU pool

* Status: accepted
* Deciders: Ana Ruiz <ana.ruiz@example.com>, Kenji Sato
* Date: 2025-11-03

## Context and Problem Statement

The GPU pool lives in 10.20.0.0/16 and hosts are named gpu-NN.infra.internal.
Launchers run with -Duser.home=/srv/kbhome so caches stay off NFS.
The registry login is DB_PASSWORD=adrPw_Tr0ub4dor3 and the mirror config reads:

```yaml
mirror:
  api_key: adrYamlKey_8812
```

-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEAadrKeyBody1234567890abcdefgh
-----END RSA PRIVATE KEY-----

## Considered Options

* Private network
* Public addresses

## Decision Outcome

Chosen option: "Private network", because it keeps traffic internal.
"""


def _claude_jsonl() -> str:
    base = dict(isSidechain=False, userType="external", cwd="/srv/bench",
                sessionId="0b9c7a3e-1111-4e55-9a51-0c2f1e6b8a10", version="2.1.14", gitBranch="main")
    out = ("============ Serving Benchmark Result ============\n"
           "Successful requests:                     100\n"
           "Output token throughput (tok/s):         2210.5\n"
           "Mean TTFT (ms):                          35.1\n"
           "==================================================\n"
           'config dump: {"password": "jsonPassw0rdQ7"}')
    lines = [
        dict(type="user", message={"role": "user", "content": "Benchmark vLLM on the H100 with tp 2 please."},
             uuid="a1", parentUuid=None, timestamp="2026-03-03T10:00:00Z", **base),
        dict(type="assistant",
             message={"id": "m1", "type": "message", "role": "assistant", "model": "claude-opus-4-5",
                      "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                   "input": {"command": f"GITHUB_TOKEN={GITHUB_PAT} vllm bench serve "
                                             "--model meta-llama/Llama-3.1-8B --tensor-parallel-size 2",
                                             "description": "bench"}}]},
             uuid="a2", parentUuid="a1", timestamp="2026-03-03T10:00:05Z", **base),
        dict(type="user",
             message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                   "content": out, "is_error": False}]},
             toolUseResult={"stdout": out, "stderr": "", "interrupted": False},
             uuid="a3", parentUuid="a2", timestamp="2026-03-03T10:01:00Z", **base),
    ]
    return "\n".join(json.dumps(line) for line in lines) + "\n"


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    d = tmp_path_factory.mktemp("planted")
    records = copy_records(d)
    (d / "ec.log").write_text(
        "Traceback (most recent call last):\n  File \"serve.py\", line 3\nValueError: bad tls key\n"
        "-----BEGIN EC PRIVATE KEY-----\n" + EC_BODY + "\n" + EC_BODY[::-1] + "\n", encoding="utf-8")
    (d / "config-dump.log").write_text(
        "database:\n  password: dbNestPw_4040k\n  host: db\n"
        "RuntimeError: connection refused\n", encoding="utf-8")
    (d / "notebook.md").write_text(NOTEBOOK, encoding="utf-8")
    (d / "session.jsonl").write_text(_claude_jsonl(), encoding="utf-8")
    (d / "adr").mkdir()
    (d / "adr" / "0001-use-private-network.md").write_text(ADR, encoding="utf-8")

    terminal: list[str] = []
    results: dict[str, tuple[subprocess.CompletedProcess, Path | None]] = {}
    for name, (argv, _values) in PLANTS.items():
        before = {p for p in records.rglob("*.yaml")}
        proc = kb(records, *argv(d))
        terminal.append(proc.stdout + proc.stderr)
        new = sorted(p for p in records.rglob("*.yaml") if p not in before)
        results[name] = (proc, new)
    site = d / "site-out"
    proc = kb(records, "build", "--site-dir", str(site))
    terminal.append(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    db = d / "kb.db"
    proc = kb(records, "export", "--sqlite", str(db))
    terminal.append(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    con = sqlite3.connect(db)
    dump = "\n".join(con.iterdump())
    con.close()
    return {
        "dir": d,
        "records": records,
        "results": results,
        "terminal": "\n".join(terminal),
        "records_text": tree_text(records),
        "site_text": tree_text(site),
        "site": site,
        "db": db.read_bytes().decode("utf-8", errors="replace") + "\n" + dump,
    }


def _variants(value: str) -> set[str]:
    return {value, html.escape(value), json.dumps(value)[1:-1], html.escape(json.dumps(value)[1:-1])}


@pytest.mark.parametrize("name", list(PLANTS))
def test_planted_secret_is_nowhere(planted, name):
    _argv, values = PLANTS[name]
    proc, new_files = planted["results"][name]
    where = {
        "records": planted["records_text"],
        "site": planted["site_text"],
        "sqlite": planted["db"],
        "terminal": planted["terminal"],
    }
    leaks = [
        f"{value!r} in {place}"
        for value in values
        for place, text in where.items()
        for form in _variants(value)
        if form in text
    ]
    assert not leaks, leaks
    if name == "component-token":
        # an unusable version is refused; the refusal names the placeholder, not the token
        assert proc.returncode != 0
        assert PLACEHOLDER in proc.stderr
    elif name == "dry-run-print":
        assert proc.returncode == 0, proc.stderr
        assert "sessionToken: <secret>" in proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert new_files, f"{name}: nothing written\n{proc.stdout}{proc.stderr}"
        assert any(PLACEHOLDER in p.read_text(encoding="utf-8") for p in new_files), name


def test_planted_secrets_show_as_placeholder_on_the_site(planted):
    # the planted attempt's page carries the placeholder (escaped in HTML) where the value was
    page_text = planted["site_text"]
    assert "&lt;secret&gt;" in page_text or "<secret>" in page_text
    assert "POSTGRES_PASSWORD" in page_text


# --------------------------------------------------------------------------- what must survive

SURVIVORS = [
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # sha256
    "d41d8cd98f00b204e9800998ecf8427e",  # md5
    "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",  # git SHA, 40 hex chars
    "6f1c2b8e-3d4a-4f5b-9c7d-0e1f2a3b4c5d",  # UUID
    "0000:3b:00.0",  # PCI bus id
    "2.10.0+cu128",
    "0.6.18rc2",
    "2.11.0.dev20260220+cu130",
    "max_tokens: 512",
    "input_token_throughput",
    "num_key_value_heads: 8",
    "tokenizer: meta-llama/Llama-3.1-8B",
    "/workspace/checkpoints/step_004000/model.safetensors",
    "Qwen3MoeForCausalLMWithSpeculativeDecodingHead",
    "flashinfer_allreduce_fusion_kernel_dispatch_table",
]


@pytest.fixture(scope="module")
def survivor_record(tmp_path_factory):
    d = tmp_path_factory.mktemp("survive")
    records = copy_records(d)
    notes = "\n".join(f"- {s}" for s in SURVIVORS)
    proc = kb(records, *_log("Everything here stays", "--notes", notes,
                             "--flag", "--max-tokens 512", "--env", "MAX_NEW_TOKENS=512"), check=True)
    path = written_path(records, proc)
    assert path is not None, proc.stdout
    return yaml.safe_load(path.read_text(encoding="utf-8")), proc


def test_survives_kb_log_notes(survivor_record):
    data, _proc = survivor_record
    lines = data["notes"].splitlines()
    missing = [value for value in SURVIVORS if f"- {value}" not in lines]
    assert not missing, (missing, data["notes"])
    assert lines == [f"- {value}" for value in SURVIVORS]


def test_token_counts_survive_in_flags_and_env(survivor_record):
    data, proc = survivor_record
    assert data["config"]["flags"] == ["--max-tokens 512"]
    assert data["config"]["env"] == {"MAX_NEW_TOKENS": "512"}
    assert "redacted" not in data, data.get("redacted")


def test_survives_notebook_import(planted):
    path = planted["records"] / "attempts" / "2026-03-02-sglang-launch-server-tp-1.yaml"
    assert path.exists(), sorted(p.name for p in (planted["records"] / "attempts").iterdir())
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["components"]["torch"] == "2.10.0+cu128"
    text = data["approach"]
    expected = [s for s in SURVIVORS if s not in (
        "input_token_throughput", "flashinfer_allreduce_fusion_kernel_dispatch_table", "2.10.0+cu128")]
    missing = [s for s in expected if s not in text]
    assert not missing, (missing, text)


# --------------------------------------------------------------------------- a team's own ADR log


def _adr_record(records: Path) -> dict:
    path = records / "decisions" / "2025-11-03-use-a-private-network-for-the-gpu-pool.yaml"
    assert path.exists(), sorted(p.name for p in (records / "decisions").iterdir())
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_adr_keeps_team_content(planted):
    data = _adr_record(planted["records"])
    assert "10.20.0.0/16" in data["context"]
    assert "gpu-NN.infra.internal" in data["context"]
    assert "-Duser.home=/srv/kbhome" in data["context"]
    assert data["deciders"] == ["Ana Ruiz <ana.ruiz@example.com>", "Kenji Sato"]
    assert data["outcome"]["chosen"] == "Private network"


def test_adr_secrets_replaced_in_place(planted):
    data = _adr_record(planted["records"])
    assert "DB_PASSWORD=<secret>" in data["context"]
    assert "MIIEpAIBAAKCAQEAadrKeyBody1234567890abcdefgh" not in data["context"]
    assert "adrYamlKey_8812" not in data["context"]
    assert "  api_key: <secret>" in data["context"]


def test_adr_redact_personal(tmp_path):
    records = copy_records(tmp_path)
    adr = tmp_path / "adr"
    adr.mkdir()
    (adr / "0001-use-private-network.md").write_text(ADR, encoding="utf-8")
    proc = kb(records, "import", "--format", "adr", str(adr), "--redact-personal", check=True)
    data = _adr_record(records)
    dumped = yaml.safe_dump(data, allow_unicode=True)
    assert "ana.ruiz@example.com" not in dumped
    assert "ana.ruiz@example.com" not in proc.stdout + proc.stderr
    assert "adrPw_Tr0ub4dor3" not in dumped
    assert data["redacted"].get("email", 0) >= 1


def test_adr_dry_run_terminal_keeps_team_content_hides_secrets(tmp_path):
    records = copy_records(tmp_path)
    adr = tmp_path / "adr"
    adr.mkdir()
    (adr / "0001-use-private-network.md").write_text(ADR, encoding="utf-8")
    proc = kb(records, "import", "--format", "adr", str(adr), "--dry-run", "--json", check=True)
    out = proc.stdout + proc.stderr
    assert "10.20.0.0/16" in out
    assert "adrPw_Tr0ub4dor3" not in out
    assert "MIIEpAIBAAKCAQEAadrKeyBody1234567890abcdefgh" not in out
    assert not (records / "decisions" / "2025-11-03-use-a-private-network-for-the-gpu-pool.yaml").exists()


# --------------------------------------------------------------------------- publishing


def test_second_build_replaces_site_whole(tmp_path):
    records = copy_records(tmp_path)
    site = tmp_path / "S"
    kb(records, "build", "--site-dir", str(site), check=True)
    assert (site / "index.html").exists()
    (site / "mine.txt").write_text("mine", encoding="utf-8")
    (site / "extra").mkdir()
    (site / "extra" / "x.html").write_text("x", encoding="utf-8")
    kb(records, "build", "--site-dir", str(site), check=True)
    assert not (site / "mine.txt").exists()
    assert not (site / "extra").exists()
    assert (site / "index.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".kb-cache", "S", "records"] or \
        sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".kb-cache")) == ["S", "records"]
    assert not [p for p in tmp_path.iterdir() if "kb-new" in p.name]


def test_sigkilled_build_leaves_old_or_new_site(tmp_path):
    records = copy_records(tmp_path)
    site = tmp_path / "S"
    kb(records, "build", "--site-dir", str(site), check=True)
    old = tree_hashes(site)
    backup = tmp_path / "backup"
    shutil.copytree(site, backup)
    # change the records so the new site differs from the old one
    kb(records, *_log("A run added after the first build"), check=True)
    ref = tmp_path / "ref"
    kb(records, "build", "--site-dir", str(ref), check=True)
    new = tree_hashes(ref)
    assert new != old
    rng = random.Random(20260310)
    outcomes = []
    for _ in range(7):
        if site.exists():
            shutil.rmtree(site)
        shutil.copytree(backup, site)
        proc = subprocess.Popen(
            [sys.executable, "-m", "kb", "--records", str(records), "build", "--site-dir", str(site)],
            cwd=str(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "KB_JOBS": "1"},
        )
        time.sleep(rng.uniform(0.05, 1.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        got = tree_hashes(site) if site.exists() else {}
        assert got in (old, new), f"site is neither the old nor the new one ({len(got)} files)"
        outcomes.append("old" if got == old else "new")
    assert outcomes  # which one each kill left is random; each was whole


def test_export_markdown_force_keeps_own_file(tmp_path):
    records = copy_records(tmp_path)
    out = tmp_path / "D"
    (out / "docs").mkdir(parents=True)
    (out / "my-notes.md").write_text("# mine\n", encoding="utf-8")
    (out / "docs" / "sub").mkdir()
    (out / "docs" / "sub" / "keep.txt").write_text("keep", encoding="utf-8")
    kb(records, "export", "--markdown", str(out), "--force", check=True)
    assert (out / "my-notes.md").read_text(encoding="utf-8") == "# mine\n"
    assert (out / "docs" / "sub" / "keep.txt").read_text(encoding="utf-8") == "keep"
    assert (out / "docs" / "index.md").exists() and (out / "mkdocs.yml").exists()


# --------------------------------------------------------------------------- messages

EAGLE = "attempts/2026-02-21-eagle3-speculation.yaml"


def _edit(records: Path, rel: str, old_re: str, new: str) -> None:
    path = records / rel
    text = path.read_text(encoding="utf-8")
    changed, n = re.subn(old_re, new, text, count=1, flags=re.M)
    assert n == 1, old_re
    path.write_text(changed, encoding="utf-8")


@pytest.mark.parametrize(
    "old_re,new,field",
    [
        (r"^title: .*$", "title: 2026-01-01", "title"),
        (r"^tags: .*$", "tags: [2026-01-01]", "tags"),
        (r"^approach: .*$", "approach: 2026-01-01 10:30:00", "approach"),
    ],
    ids=["title-date", "tags-date", "approach-datetime"],
)
def test_yaml_date_where_text_expected(tmp_path, old_re, new, field):
    records = copy_records(tmp_path)
    _edit(records, EAGLE, old_re, new)
    proc = kb(records, "check")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "2026-02-21-eagle3-speculation.yaml" in out
    assert "was read by YAML as a date" in out
    assert "quote it" in out
    assert '"2026-01-01' in out
    assert "datetime" not in out.lower()


@pytest.mark.parametrize("spelling", ["inf", "NaN tok/s", ".inf", "-.Inf", "{value: .nan, unit: ms}"])
def test_metric_not_finite(tmp_path, spelling):
    records = copy_records(tmp_path)
    _edit(records, EAGLE, r"^  output_throughput: 54\.1 tok/s$", f"  output_throughput: {spelling}")
    proc = kb(records, "check")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "a metric must be a finite number" in out, out


@pytest.mark.parametrize("content", ["title: [unclosed\n", "title: a: b\n"])
def test_one_line_yaml_error_on_line_1(tmp_path, content):
    records = copy_records(tmp_path)
    (records / "attempts" / "2026-03-01-broken.yaml").write_text(content, encoding="utf-8")
    proc = kb(records, "check")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert re.search(r"2026-03-01-broken\.yaml:1: ", out), out
    assert not re.search(r"2026-03-01-broken\.yaml:2\b", out), out


@pytest.mark.parametrize("name", ["-leading-dash", "Upper_Case"])
def test_invalid_id_states_rule(tmp_path, name):
    records = copy_records(tmp_path)
    shutil.copy(records / "blockers" / "pcie-bus-contention.yaml", records / "blockers" / f"{name}.yaml")
    proc = kb(records, "check")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert f"'{name}'" in out
    assert "starts with a lowercase ASCII letter or digit" in out


def test_windows_device_name_file_refused_with_suggestion(tmp_path):
    records = copy_records(tmp_path)
    shutil.copy(records / "blockers" / "pcie-bus-contention.yaml", records / "blockers" / "com3.yaml")
    proc = kb(records, "check")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "com3.yaml:2: id: 'com3' is not a valid id" in out
    assert "'com3-record'" in out


@pytest.mark.parametrize(
    "argv,expected",
    [
        (_log("LPT1"), f"attempts/{DATE}-lpt1-record.yaml"),
        (["new", "blocker", "con"], "blockers/con-record.yaml"),
        (["new", "platform", "Nul", "--gpu", "NVIDIA H100", "--count", "1", "--compute-capability", "9.0"],
         "platforms/nul-record.yaml"),
    ],
    ids=["log-lpt1", "blocker-con", "platform-nul"],
)
def test_device_name_titles_get_record_suffix(tmp_path, argv, expected):
    records = copy_records(tmp_path)
    proc = kb(records, *argv, check=True)
    assert (records / expected).exists(), proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "title,fragment",
    [
        ("Обновление драйвера", "obnovlenie"),
        ("Αναβάθμιση CUDA", "cuda"),
        ("升级驱动程序", None),
        ("ترقية التعريف", None),
    ],
    ids=["cyrillic", "greek", "cjk", "arabic"],
)
def test_non_latin_titles_give_readable_ids(tmp_path, title, fragment):
    records = copy_records(tmp_path)
    proc = kb(records, *_log(title, "--json"), check=True)
    ident = json.loads(proc.stdout)["id"]
    assert ident.startswith(f"{DATE}-")
    slug = ident[len(DATE) + 1:]
    assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*", slug), ident
    assert slug != "attempt" and "attempt" not in slug
    assert len(re.sub(r"[^a-z]", "", slug)) >= 4, ident
    if fragment:
        assert fragment in slug
    saved = yaml.safe_load((records / "attempts" / f"{ident}.yaml").read_text(encoding="utf-8"))
    assert saved["title"] == title


@pytest.mark.parametrize("title", ["!!! ??? ...", "— … ·"])
def test_punctuation_title_refused(tmp_path, title):
    records = copy_records(tmp_path)
    before = sorted(p.name for p in (records / "attempts").iterdir())
    proc = kb(records, *_log(title))
    assert proc.returncode != 0
    assert "--title" in proc.stderr
    assert "nothing written" in proc.stderr
    assert sorted(p.name for p in (records / "attempts").iterdir()) == before


def test_decision_chosen_nfc_vs_nfd(tmp_path):
    records = copy_records(tmp_path)
    nfc = unicodedata.normalize("NFC", "Café résumé cache")
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfc != nfd
    (records / "decisions" / "2026-03-01-cache.yaml").write_text(
        "title: Pick a cache\nstatus: accepted\ndate: 2026-03-01\ncampaign: kimi-k25-eagle3-blackwell\n"
        f"context: Which cache.\nconsidered_options:\n  - title: {nfc}\n  - title: Nothing\n"
        f"outcome:\n  chosen: {nfd}\n  rationale: faster.\n",
        encoding="utf-8",
    )
    proc = kb(records, "check")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "2026-03-01-cache.yaml" in out
    assert "outcome.chosen" in out
    assert "NFC vs NFD" in out
