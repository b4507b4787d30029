"""kb.importers.mlflow_runs: `kb import --format mlflow` against real MLflow stores.

Runs are logged with MLflow's own client into a file store (`mlruns/`), a SQLite store
(`mlflow.db`) and a `mlflow server` started here on 127.0.0.1; kb imports them and the drafts are
checked field by field.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT

from kb.cli import cli
from kb.importers.mlflow_runs import metric_of_key

BIN = Path(sys.executable).parent
EXPERIMENT = "kimi-eagle3-sweep"
START = {  # each run's start, UTC
    "success": dt.datetime(2026, 3, 2, 10, 0, tzinfo=dt.timezone.utc),
    "failed": dt.datetime(2026, 3, 3, 23, 30, tzinfo=dt.timezone.utc),
    "killed": dt.datetime(2026, 3, 4, 8, 15, tzinfo=dt.timezone.utc),
    "running": dt.datetime(2026, 3, 5, 9, 0, tzinfo=dt.timezone.utc),
}
FUSION_ERROR = "RuntimeError: No supported CUDA architectures found for major versions [9, 10]"


def _ms(when: dt.datetime) -> int:
    return int(when.timestamp() * 1000)


def log_runs(uri: str, experiment: str = EXPERIMENT) -> dict[str, tuple[str, str]]:
    """Log the four runs through MLflow's client into the store at ``uri``; return
    ``{label: (experiment id, run id)}``."""
    from mlflow.entities import Metric, Param
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    found = client.get_experiment_by_name(experiment)
    exp = found.experiment_id if found else client.create_experiment(experiment)
    ids = {}

    def run(label: str, name: str, params: dict, metrics: dict, tags: dict, status: str | None) -> None:
        r = client.create_run(exp, start_time=_ms(START[label]), run_name=name, tags=tags)
        stamp = _ms(START[label]) + 60_000
        client.log_batch(r.info.run_id, metrics=[Metric(k, v, stamp, 0) for k, v in metrics.items()],
                         params=[Param(k, v) for k, v in params.items()])
        if status:
            client.set_terminated(r.info.run_id, status, end_time=stamp + 1000)
        ids[label] = (exp, r.info.run_id)

    run("success", "EAGLE-3 speculation, 3 steps, tp 8",
        {"model": "moonshotai/Kimi-K2.5", "tp": "8", "speculative_num_steps": "3", "cuda": "12.8.1",
         "torch": "2.10.0+cu128"},
        {"output_tok_s": 96.1, "ttft_ms": 210.5, "median_tpot_ms": 11.25, "loss": 0.31},
        {"gpu": "NVIDIA RTX PRO 6000 Blackwell", "mlflow.note.content": "EAGLE-3 draft model, 3 speculative steps"},
        "FINISHED")
    run("failed", "FlashInfer allreduce fusion", {"model": "Kimi-K2.5", "tp": "8"}, {},
        {"error": FUSION_ERROR}, "FAILED")
    run("killed", "NCCL tree algorithm", {"model": "Kimi-K2.5", "NCCL_ALGO": "Tree"}, {"tokens_per_second": 40.5},
        {}, "KILLED")
    run("running", "still sweeping", {"model": "Kimi-K2.5"}, {}, {}, None)
    return ids


def kb(records: Path, *args: str):
    return CliRunner().invoke(cli, ["--records", str(records), "import", "--format", "mlflow", *args])


def attempts(records: Path) -> dict[str, dict]:
    """The imported drafts by title."""
    out = {}
    for path in sorted((records / "attempts").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if "imported" in data.get("tags", []):
            out[data["title"]] = {**data, "_id": path.stem}
    return out


def check_drafts(records: Path, ids: dict[str, tuple[str, str]], run_base: str | None, label: str) -> None:
    """The drafts of :func:`log_runs`, field by field; ``label`` is the store the sources name."""
    drafts = attempts(records)
    assert sorted(drafts) == ["EAGLE-3 speculation, 3 steps, tp 8", "FlashInfer allreduce fusion", "NCCL tree algorithm"]
    ok = drafts["EAGLE-3 speculation, 3 steps, tp 8"]
    assert ok["_id"] == "2026-03-02-eagle-3-speculation-3-steps-tp-8"
    assert ok["date"] == dt.date(2026, 3, 2) and ok["status"] == "draft"
    assert ok["outcome"] == "improved"  # 96.1 against the campaign's 82 tok/s
    assert ok["baseline"] == "2026-02-19-baseline-tp8"
    assert ok["metrics"] == {"output_throughput": "96.1 tok/s", "ttft": "210.5 ms", "median_tpot": "11.25 ms"}
    assert ok["config"]["settings"] == {"model": "moonshotai/Kimi-K2.5", "tp": "8", "speculative_num_steps": "3",
                                        "cuda": "12.8.1", "torch": "2.10.0+cu128"}
    assert ok["stack"] == "cuda-12.8" and ok["platform"] == "rtx-pro-6000-blackwell-x8"
    assert ok["approach"] == "EAGLE-3 draft model, 3 speculative steps"
    assert "loss 0.31" in ok["notes"] and "dated 2026-03-02 from the MLflow run's start time (UTC)" in ok["notes"]
    anchor = next(s for s in ok["source"] if s["field"] == "attempt")
    exp, run_id = ids["success"]
    assert anchor["key"] == f"mlflow:{exp}:{run_id}" and anchor["locator"] == f"run {run_id}"
    assert anchor.get("file", anchor.get("url")) == label and anchor["format"] == "mlflow"
    metric_source = next(s for s in ok["source"] if s["field"] == "metrics.ttft")
    assert metric_source["quote"] == "ttft_ms=210.5" and metric_source["locator"] == f"run {run_id} metric ttft_ms"
    failed = drafts["FlashInfer allreduce fusion"]
    assert failed["outcome"] == "failed" and failed["error"] == FUSION_ERROR
    assert failed["blocked_by"] == ["flashinfer-allreduce-fusion-jit-no-sm120"]
    assert failed["date"] == dt.date(2026, 3, 3)  # 23:30 UTC stays the 3rd
    killed = drafts["NCCL tree algorithm"]
    assert killed["outcome"] == "inconclusive" and "killed before it finished" in killed["notes"]
    assert killed["metrics"] == {"output_throughput": "40.5 tok/s"} and killed["config"]["settings"]["NCCL_ALGO"] == "Tree"
    for title, key in (("EAGLE-3 speculation, 3 steps, tp 8", "success"), ("FlashInfer allreduce fusion", "failed"),
                       ("NCCL tree algorithm", "killed")):
        exp, run_id = ids[key]
        expected = f"{run_base}/#/experiments/{exp}/runs/{run_id}" if run_base else None
        assert drafts[title].get("run_url") == expected, title


def check_reimport(records: Path, *args: str) -> None:
    again = kb(records, *args)
    assert again.exit_code == 0, again.stderr
    assert "0 draft(s) written" in again.stderr and "3 already imported" in again.stderr


def tree_state(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))}


# --------------------------------------------------------------------------- metric names


@pytest.mark.parametrize(("key", "expected"), [
    ("tok_s", ("output_throughput", "tok/s")),
    ("output_tok_s", ("output_throughput", "tok/s")),
    ("decode_tok_s", ("output_throughput", "tok/s")),
    ("prefill_tok_s", ("input_throughput", "tok/s")),
    ("tokens_per_second", ("output_throughput", "tok/s")),
    ("throughput/tokens_per_sec", ("output_throughput", "tok/s")),
    ("decode_tps", ("output_throughput", "tok/s")),
    ("output_throughput", ("output_throughput", "tok/s")),
    ("total_token_throughput", ("total_throughput", "tok/s")),
    ("request_throughput", ("request_throughput", "req/s")),
    ("req_s", ("request_throughput", "req/s")),
    ("ttft_ms", ("ttft", "ms")),
    ("median_ttft_ms", ("median_ttft", "ms")),
    ("p99_itl_ms", ("p99_itl", "ms")),
    ("mean_e2el_ms", ("mean_e2e_latency", "ms")),
    ("Eval/TTFT_ms", ("eval_ttft", "ms")),
    ("latency_s", ("latency", "s")),
    ("busbw_gb_s", ("busbw", "GB/s")),
    ("it_s", ("iterations", "it/s")),
    ("peak_memory_gib", ("peak_memory", "GiB")),
    ("accept_length", ("acceptance_length", "tokens")),
    ("loss", None), ("accuracy", None), ("epoch", None), ("gbps", None),
])
def test_metric_keys_take_the_names_and_units_of_kb_readers(key, expected):
    assert metric_of_key(key) == expected


# --------------------------------------------------------------------------- file and SQLite stores


def test_file_store_runs_become_draft_attempts(campaign_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 refuses to write a file store without it
    store = tmp_path / "mlruns"
    ids = log_runs(store.as_uri())
    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE")  # kb sets it itself while it reads
    before = tree_state(store)
    res = kb(campaign_copy, str(store), "--ui-url", "http://127.0.0.1:5000/")
    assert res.exit_code == 0, res.stderr
    assert f"run {ids['running'][1]} (still sweeping) is RUNNING, not ended: not drafted" in res.stderr
    assert "3 draft(s) written" in res.stderr
    check_drafts(campaign_copy, ids, "http://127.0.0.1:5000", "mlruns")
    assert tree_state(store) == before  # the store is only read
    check_reimport(campaign_copy, str(store))
    assert os.environ.get("MLFLOW_ALLOW_FILE_STORE") is None


def test_sqlite_store_is_read_from_a_copy_and_imported_once(campaign_copy, tmp_path):
    db = tmp_path / "mlflow.db"
    ids = log_runs(f"sqlite:///{db}")
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    res = kb(campaign_copy, f"sqlite:///{db}", "--dry-run")
    assert res.exit_code == 0, res.stderr
    assert "dry run: 3 draft(s) would be written" in res.stderr and attempts(campaign_copy) == {}
    res = kb(campaign_copy, str(db))  # a path works as well as the URI
    assert res.exit_code == 0, res.stderr
    check_drafts(campaign_copy, ids, None, "mlflow.db")
    ok = attempts(campaign_copy)["EAGLE-3 speculation, 3 steps, tp 8"]
    assert "import again with --ui-url" in ok["notes"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    check_reimport(campaign_copy, str(db))
    check = CliRunner().invoke(cli, ["--records", str(campaign_copy), "check"])
    assert check.exit_code == 0, check.output


def test_an_experiment_that_names_another_model_is_not_compared_with_the_campaign(campaign_copy, tmp_path):
    from mlflow.tracking import MlflowClient

    db = tmp_path / "mlflow.db"
    log_runs(f"sqlite:///{db}")
    client = MlflowClient(tracking_uri=f"sqlite:///{db}")
    other = client.create_experiment("llama-70b")
    r = client.create_run(other, start_time=_ms(START["success"]), run_name="llama tp4")
    client.log_batch(r.info.run_id, metrics=[], params=[])
    client.log_metric(r.info.run_id, "output_tok_s", 150.0)
    client.log_param(r.info.run_id, "model", "meta-llama/Llama-3.3-70B")
    client.set_terminated(r.info.run_id, "FINISHED")
    res = kb(campaign_copy, str(db), "--experiment", "llama-70b")
    assert res.exit_code == 0, res.stderr
    drafts = attempts(campaign_copy)
    assert list(drafts) == ["llama tp4"]
    assert drafts["llama tp4"]["outcome"] == "inconclusive" and "baseline" not in drafts["llama tp4"]
    assert "name neither the model nor the platform of campaign kimi-k25-eagle3-blackwell" in res.stderr
    res = kb(campaign_copy, str(db), "--experiment", "no-such")
    assert res.exit_code == 2
    assert "--experiment no-such:" in res.stderr and f"{EXPERIMENT} (id " in res.stderr and "llama-70b" in res.stderr


def test_secrets_in_params_are_redacted_and_a_private_run_address_is_not_linked(campaign_copy, tmp_path):
    from mlflow.tracking import MlflowClient

    db = tmp_path / "mlflow.db"
    client = MlflowClient(tracking_uri=f"sqlite:///{db}")
    exp = client.create_experiment(EXPERIMENT)
    r = client.create_run(exp, start_time=_ms(START["success"]), run_name="Kimi-K2.5 with a token")
    client.log_param(r.info.run_id, "hf_token", "hf_Qm7rT2xVb9LpW4nZ8cK1dY6sA3fJ0gHeUo")
    client.log_metric(r.info.run_id, "output_tok_s", 83.0)
    client.set_terminated(r.info.run_id, "FINISHED")
    res = kb(campaign_copy, str(db), "--ui-url", "http://10.20.30.40:5000")
    assert res.exit_code == 0, res.stderr
    text = next((campaign_copy / "attempts").glob("2026-03-02-*.yaml")).read_text(encoding="utf-8")
    assert "hf_Qm7rT2xVb9LpW4nZ8cK1dY6sA3fJ0gHeUo" not in text and "10.20.30.40" not in text
    draft = yaml.safe_load(text)
    assert "run_url" not in draft and draft["outcome"] == "neutral"  # 83 is within 2 % of 82
    assert "its run URL names a private host or a user" in res.stderr


# --------------------------------------------------------------------------- a tracking server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(base: str) -> bool:
    """Whether the tracking server at ``base`` answers ``/health`` with ``OK`` (not yet, while it starts)."""
    try:
        with urllib.request.urlopen(base + "/health", timeout=5) as resp:
            return resp.read().strip() == b"OK"
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="module")
def tracking_server(tmp_path_factory):
    """`mlflow server` on 127.0.0.1 and a free port, over a SQLite store; stopped after the
    module. Its start is time-boxed (120 s): a server that does not answer /health fails the test."""
    tmp = tmp_path_factory.mktemp("mlflow-server")
    port = _free_port()
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen([str(BIN / "mlflow"), "server", "--backend-store-uri", f"sqlite:///{tmp / 'server.db'}",
                             "--default-artifact-root", str(tmp / "artifacts"), "--host", "127.0.0.1",
                             "--port", str(port), "--workers", "1"],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def stop() -> None:
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
            if proc.poll() is not None:
                break
            try:
                os.killpg(proc.pid, sig)  # the server and the workers it started, by the group it leads
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
        log.close()

    try:
        deadline = time.monotonic() + 120
        while not _healthy(base):
            if proc.poll() is not None or time.monotonic() > deadline:
                stop()
                pytest.fail("mlflow server did not answer /health within 120 s:\n"
                            + (tmp / "server.log").read_text(errors="replace")[-3000:])
            time.sleep(0.5)
        yield base
    finally:
        stop()


def test_tracking_server_runs_link_their_run_pages(campaign_copy, tracking_server, tmp_path):
    ids = log_runs(tracking_server)
    res = kb(campaign_copy, tracking_server)
    assert res.exit_code == 0, res.stderr
    check_drafts(campaign_copy, ids, tracking_server, tracking_server)
    check_reimport(campaign_copy, tracking_server + "/")
    from kb.site.build import build_site

    site = build_site(campaign_copy, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True)
    exp, run_id = ids["success"]
    html = (site / "attempts" / "2026-03-02-eagle-3-speculation-3-steps-tp-8" / "index.html").read_text(encoding="utf-8")
    assert f'<a class="kb-run" href="{tracking_server}/#/experiments/{exp}/runs/{run_id}"' in html


# --------------------------------------------------------------------------- stores that cannot be opened


def _text_file(path: Path) -> str:
    path.write_text("hello", encoding="utf-8")
    return str(path)


def _sqlite_without_mlflow(path: Path) -> str:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    return str(path)


@pytest.mark.parametrize(("make", "says"), [
    (lambda t: str(t / "missing"), "no such file or folder; pass an MLflow store: its mlruns/ folder"),
    (lambda t: str(t / "missing.db"), "no such file or folder"),
    (lambda t: (t / "empty").mkdir() or str(t / "empty"), "not an MLflow file store (no experiment folder holding meta.yaml)"),
    (lambda t: _text_file(t / "notes.db"), "not a SQLite database"),
    (lambda t: _sqlite_without_mlflow(t / "other.db"), "not an MLflow tracking store (it has no experiments and runs tables)"),
    (lambda t: f"sqlite:///{t / 'gone.db'}", "no such file; pass the mlflow.db file"),
    (lambda t: f"http://127.0.0.1:{_free_port()}", "no MLflow tracking server answers there"),
    (lambda t: "postgresql://db.example/mlflow", "serve this one with 'mlflow server --backend-store-uri"),
])
def test_a_store_that_cannot_be_opened_is_named_with_the_fix(campaign_copy, tmp_path, make, says):
    location = make(tmp_path)
    started = time.monotonic()
    res = kb(campaign_copy, location)
    assert res.exit_code == 1
    assert f"kb: {location}: " in res.stderr and says in res.stderr
    assert time.monotonic() - started < 30  # no client retrying for minutes
    assert attempts(campaign_copy) == {}


def test_mlflow_options_belong_to_the_mlflow_format(campaign_copy, tmp_path):
    res = CliRunner().invoke(cli, ["--records", str(campaign_copy), "import", str(tmp_path / "x.md"), "--ui-url",
                                   "http://127.0.0.1:5000"])
    assert res.exit_code == 2 and "apply to --format mlflow only" in res.output
    res = kb(campaign_copy, str(tmp_path), "--all")
    assert res.exit_code == 2 and "do not apply to --format mlflow" in res.output
    res = kb(campaign_copy, str(tmp_path), "--ui-url", "javascript:alert(1)")
    assert res.exit_code == 2 and "--ui-url javascript:alert(1): not an http(s) address" in res.stderr


def test_a_run_rejected_in_review_stays_out_when_the_store_is_imported_again(campaign_copy, tmp_path):
    from kb.usecases.review import load_drafts, reject_draft

    db = tmp_path / "mlflow.db"
    log_runs(f"sqlite:///{db}")
    assert kb(campaign_copy, str(db)).exit_code == 0
    before = attempts(campaign_copy)
    title = "EAGLE-3 speculation, 3 steps, tp 8"
    loaded, drafts = load_drafts(campaign_copy)
    rid = before[title]["_id"]
    assert rid in drafts
    reject_draft(campaign_copy, loaded, rid, "measured with the wrong model")
    res = kb(campaign_copy, str(db))
    assert res.exit_code == 0, res.stderr
    assert "1 rejected in review" in res.stderr
    assert set(attempts(campaign_copy)) == set(before) - {title}
