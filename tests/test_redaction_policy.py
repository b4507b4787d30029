"""The redaction policy by meaning (issue 25; README, "Redaction"): secrets always go, whatever
path they come by and whatever their shape; personal details go from session logs and machine
captures; a team's own documents keep what they say. One corpus of planted secrets runs through
every writer path and every output (records, pages, search index, twins, SQLite, terminal); a
must-keep corpus loses nothing."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.redact import Redactor, redact_secrets, secret_key_name

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = "kimi-k25-eagle3-blackwell"

# planted values: made up here, each in a shape the field uses (none is a real credential)
PEM_BODY = "MIIEpQIBAAKCAQEAx9Qm2Lr4Tz8WnVb3Kd7Hs1Pf6Yc0Ge5Ja2Uo9Ri4Nt7Xw3Ek1Bq"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nZb8Ny4Wq1Lm6Tr3Kd9Hs2Pf7Yc0Ge5Ja\n-----END RSA PRIVATE KEY-----"
AWS_SECRET = "Tq8vR2mZ/xK4pL9sW3nB7cY1dF6hJ0gA5eU+oI2k"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6ImFkbWluIn0."
       "Xb3kQ9vL2mT7pR4sN8wY1cF6hJ0gA5eU3oI2kZ")
HF = "hf_QmXv7rT2bL9pW4nZ8cK1dY6sA3fJ0gHeUo"
PLAIN = {"DB_PASSWORD": "plainpassfortytwo", "WANDB_API_KEY": "wandbvaluenoshape", "AWS_SECRET_ACCESS_KEY": AWS_SECRET}
URL = "https://deploy:urlpasswordvalue@wheels.example.com/simple"
SECRETS = [PEM_BODY, "Zb8Ny4Wq1Lm6Tr3Kd9Hs2Pf7Yc0Ge5Ja", AWS_SECRET, JWT, HF, "plainpassfortytwo", "wandbvaluenoshape",
           "urlpasswordvalue"]

MUST_KEEP = [
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # a sha256 digest
    "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a",  # a git SHA (40 hex: the AWS-secret length)
    "123e4567-e89b-12d3-a456-426614174000",  # a UUID
    "0000:3b:00.0",  # a PCI bus id
    "2.10.0+cu128", "2.11.0.dev20260220+cu130", "0.6.18rc2",  # versions with local labels
    "max_tokens: 512", "input_token_throughput", "num_key_value_heads: 8",  # token words that are counts
    "/usr/local/cuda-12.8/targets/x86_64-linux/lib/libcudart.so.12",
]


@pytest.mark.parametrize("text", [
    PEM, f"key: {AWS_SECRET}", f"aws_secret_access_key = {AWS_SECRET}", f"the key {AWS_SECRET} was rotated",
    f"Authorization: Bearer {JWT}", f"curl -H 'token: {JWT}'", f"HF_TOKEN={HF} python x",
    "DB_PASSWORD: plainpassfortytwo", '"WANDB_API_KEY": "wandbvaluenoshape"', "db-password = plainpassfortytwo",
    f"pip install --index-url {URL} torch", "my api token is Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==",
])
def test_every_secret_shape_is_removed(text):
    out = Redactor().redact(text)
    assert not any(s in out for s in SECRETS + ["Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg"]), out
    assert "<secret>" in out
    assert Redactor().redact(out) == out  # redacting again changes nothing


def test_a_key_block_goes_whole_even_without_its_end_line():
    cut = PEM.rsplit("\n", 2)[0]  # the END line and the last body line are missing
    out = Redactor().redact(f"before\n{cut}")
    assert out == "before\n-----BEGIN RSA PRIVATE KEY-----\n<secret>\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("keep", MUST_KEEP)
def test_what_must_survive_survives(keep):
    line = f"run on 0000:3b:00.0 with {keep} (commit recorded)"
    assert keep in Redactor().redact(line)
    assert keep in redact_secrets(line)


@pytest.mark.parametrize(("name", "secret"), [
    ("AWS_SECRET_ACCESS_KEY", True), ("db_password", True), ("wandb.api_key", True), ("clientSecret", True),
    ("HF_TOKEN", True), ("GITHUB_TOKEN", True), ("access-key", True), ("passphrase", True),
    ("max_tokens", False), ("tokenizer", False), ("input_token_throughput", False), ("num_key_value_heads", False),
    ("key_dim", False), ("monkey", False), ("compass", False), ("author", False),
])
def test_secret_names_by_their_words(name, secret):
    assert secret_key_name(name) is secret


def test_personal_details_are_kept_for_a_team_document_and_secrets_are_not():
    text = f"ssh alex@gpu-01.infra.internal; plan 10.20.0.0/16; mail alex@example.org; {HF}"
    assert Redactor(personal=False).redact(text) == \
        "ssh alex@gpu-01.infra.internal; plan 10.20.0.0/16; mail alex@example.org; <secret>"
    assert "alex" not in Redactor().redact(text)


# --------------------------------------------------------------------------- every path, every output


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "records"
    shutil.copytree(ROOT / "records", dst)
    return dst


def _run(root: Path, *args: str, input: str | None = None):
    return CliRunner().invoke(cli, ["--records", str(root), *args], input=input)


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def test_the_corpus_through_every_writer_reaches_no_record_page_twin_database_or_terminal(tmp_path):
    root = _copy(tmp_path)
    terminal: list[str] = []

    def run(*args: str, **kw):
        r = _run(root, *args, **kw)
        terminal.append(r.output)
        return r

    errfile = tmp_path / "err.log"
    errfile.write_text(f"Traceback\n{PEM}\nRuntimeError: token {JWT} refused\n", encoding="utf-8")
    base = ["log", "--campaign", CAMPAIGN, "--approach", "planted", "--outcome", "failed", "--stack", "cuda-13.0",
            "--no-interactive", "--date", "2026-03-01"]
    assert run(*base, "--title", "flags and env", "--command", f"HF_TOKEN={HF} python -m sglang.launch_server",
               *[x for k, v in PLAIN.items() for x in ("--env", f"{k}={v}")],
               "--error", f"boom {AWS_SECRET}").exit_code == 0
    assert run(*base, "--title", "error file", "--error-file", str(errfile),
               "--notes", f"pulled with {URL}\n\n{PEM}").exit_code == 0
    run(*base, "--title", "bad component", "--component", f"torch={URL}")  # refused: the message echoes it
    run(*base, "--title", f"title {HF}", "--error", "x")
    assert run("new", "decision", f"Rotate the key {AWS_SECRET}", "--campaign", CAMPAIGN,
               "--date", "2026-03-02").exit_code == 0
    notebook = tmp_path / "notebook.md"
    notebook.write_text(f"# Tuning\n\nexport WANDB_API_KEY=wandbvaluenoshape\n\n## Run\n\n"
                        f"```\n$ DB_PASSWORD=plainpassfortytwo python -m sglang.bench_serving --num-prompts 64\n"
                        f"Output token throughput (tok/s): 91.2\n```\n\nauth header was `Bearer {JWT}`\n\n{PEM}\n",
                        encoding="utf-8")
    assert run("import", str(notebook), "--all").exit_code == 0
    adr = tmp_path / "adr"
    adr.mkdir()
    (adr / "0001-wheel-index.md").write_text(
        "# 1. Use a private wheel index\n\nDate: 2026-02-01\n\n## Status\n\nAccepted\n\n## Context\n\n"
        f"Wheels come from {URL}; the deploy key is {AWS_SECRET}. GPU nodes take 10.20.0.0/16 and are named "
        "gpu-NN.infra.internal; the cache lives under user.home.\n\n## Decision\n\nUse it.\n\n## Consequences\n\n"
        f"Rotate {HF} monthly.\n", encoding="utf-8")
    assert run("import", "--format", "adr", str(adr)).exit_code == 0
    assert run("check").exit_code == 0, terminal[-1]

    records_text = "\n".join(p.read_text(encoding="utf-8") for p in root.rglob("*.yaml"))
    assert _leaks(records_text) == []
    # the ADR keeps its technical content: the address plan, the naming scheme, the option
    [adr_record] = [p for p in (root / "decisions").glob("*.yaml") if "wheel-index" in p.name]
    kept = adr_record.read_text(encoding="utf-8")
    assert "10.20.0.0/16" in kept and "gpu-NN.infra.internal" in kept and "user.home" in kept

    site = tmp_path / "site"
    assert run("build", "--site-dir", str(site)).exit_code == 0
    published = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*")
                          if p.is_file() and p.suffix in (".html", ".json", ".yaml", ".md", ".txt", ".xml"))
    assert _leaks(published) == []
    db = tmp_path / "kb.db"
    assert run("export", "--sqlite", str(db)).exit_code == 0
    with sqlite3.connect(db) as con:
        dumped = "\n".join(con.iterdump())
    assert _leaks(dumped) == []
    for args in (("why", "2026-03-01-flags-and-env"), ("roots", "--json"), ("match", f"boom {AWS_SECRET}"),
                 ("graph", "--format", "json")):
        run(*args)
    assert _leaks("\n".join(terminal)) == [], [t for t in terminal if _leaks(t)]
    assert "<secret>" in "\n".join(terminal)


def test_a_migration_keeps_what_a_record_says_and_only_drops_its_secrets(tmp_path):
    root = _copy(tmp_path)
    plat = root / "platforms" / "lab-box.yaml"
    plat.write_text("title: lab box\ngpu: NVIDIA RTX 5090\ngpu_count: 2\ncompute_capability: '12.0'\n"
                    f"notes: |\n  host gpu-box-07.lab.internal, owner alex@example.org\n  key {AWS_SECRET}\n",
                    encoding="utf-8")
    assert _run(root, "migrate", "--write").exit_code == 0
    text = plat.read_text(encoding="utf-8")
    assert "gpu-box-07.lab.internal" in text and "alex@example.org" in text and AWS_SECRET not in text


def test_json_output_of_a_query_keeps_its_figures(tmp_path):
    root = _copy(tmp_path)
    data = json.loads(_run(root, "roots", "--json").stdout)
    assert data["campaign"] == CAMPAIGN and data["roots"][0]["id"] == "sm120-unsupported-by-cuda-12.8-stack"


def test_a_machine_capture_keeps_no_secret_and_no_personal_detail(tmp_path, monkeypatch):
    """``kb capture --write``: what the probes print (a source index URL with its password, a
    note holding a token, a home path, the host) goes through the same gate."""
    from kb.capture import Capture

    cap = Capture(components={"cuda": "12.8.93", "torch": "2.9.1+cu128"},
                  platform={"gpu": "NVIDIA H200", "gpu_count": 2, "compute_capability": "9.0", "arch": "sm_90"},
                  notes=[f"torch came from {URL}", f"HF_TOKEN={HF} was set", "python in /home/alexm/venv/bin/python"],
                  sources={"torch": f"/home/alexm/venv/bin/python -c 'import torch' (index {URL})"},
                  captured_at="2026-03-01T10:00:00Z", host={"python": "3.11", "node": "gpu-box-17.lab.internal"})
    monkeypatch.setattr("kb.capture.capture_machine", lambda *a, **k: cap)
    root = tmp_path / "records"
    r = _run(root, "capture", "--write", "h200-box", "--sources")
    assert r.exit_code == 0, r.output
    text = (root / "stacks" / "h200-box.yaml").read_text(encoding="utf-8")
    assert _leaks(text + r.output) == []
    assert "alexm" not in text and "gpu-box-17" not in text and "2.9.1+cu128" in text
