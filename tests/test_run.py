"""``kb run -- CMD``: the command runs with its output streamed and its exit status passed
through, and the run is recorded as an attempt with the figure, outcome, stack, command and error
kb read from it (kb.usecases.run)."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from kb.usecases.run import OutputCapture, clean_line, option_flags, title_of

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "fixtures" / "campaign"
H200 = ROOT / "tests" / "fixtures" / "capture" / "h200x1"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    return tmp_path


def _script(project: Path, name: str, body: str) -> str:
    (project / name).write_text(textwrap.dedent(body), encoding="utf-8")
    return name


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "CUDA_", "TORCH_", "VLLM_"))}
    env.update(extra)
    return env


def _kb_run(project: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kb", "run", *args], cwd=project, capture_output=True, text=True,
                          env=env or _env(), timeout=timeout,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


_RECORDED = re.compile(r"^kb run: recorded (?:draft )?attempt (\S+) \((\w+)\) in (\S+); exit status (\d+)$", re.M)


def _path(res: subprocess.CompletedProcess[str]) -> Path:
    """The record ``kb run`` says on stderr it wrote (its stdout is the command's own)."""
    found = _RECORDED.findall(res.stderr)
    assert len(found) == 1, res.stdout + res.stderr
    path = Path(found[0][2])
    assert path.parent == Path("records/attempts") and path.stem == found[0][0]
    return path


def _written(project: Path, res: subprocess.CompletedProcess[str]) -> dict:
    return yaml.safe_load((project / _path(res)).read_text(encoding="utf-8"))


BENCH = """\
    import sys, time
    for i in range(3):
        print(f"\\r\\x1b[32mwarmup {i}/3\\x1b[0m", end="", flush=True)
        time.sleep(0.01)
    print()
    print(f"output_throughput: {sys.argv[1]} tok/s")
    print("ttft: 41.2 ms")
"""


def test_a_faster_run_is_recorded_as_an_improvement_over_the_campaigns_baseline(project):
    bench = _script(project, "bench.py", BENCH)
    res = _kb_run(project, "--no-capture", "--", sys.executable, bench, "95.3", "--tp", "8",
                  env=_env(NCCL_ALGO="Ring", CUDA_VISIBLE_DEVICES="0,1", HOME_PAGE="x"))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-2:] == ["output_throughput: 95.3 tok/s", "ttft: 41.2 ms"]  # the command's own, alone
    rec = _written(project, res)
    assert rec["outcome"] == "improved" and rec["status"] == "draft"
    assert rec["metrics"] == {"output_throughput": "95.3 tok/s", "ttft": "41.2 ms"}
    assert rec["config"]["command"] == f"{sys.executable} bench.py 95.3 --tp 8"
    assert rec["config"]["flags"] == ["--tp 8"]
    assert rec["config"]["env"] == {"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_ALGO": "Ring"}
    assert rec["stack"] == "cuda-13.0"  # the campaign's current stack
    assert rec["title"] == "bench.py 95.3 --tp 8" and rec["tags"] == ["kb-run"]
    assert "warmup 2/3\noutput_throughput: 95.3 tok/s" in rec["notes"]  # redraws and colours cleaned
    assert "\x1b" not in rec["notes"]
    [src] = rec["source"]
    assert src["field"] == "attempt" and src["locator"] == "stdout and stderr, 3 lines" and len(src["sha256"]) == 64
    assert ("kb run: output_throughput 95.3 tok/s against 82 tok/s (the latest baseline run, 2026-02-19-baseline-tp8): "
            "+16.2 %, higher is better, noise 2 %: improved") in res.stderr
    check = subprocess.run([sys.executable, "-m", "kb", "check"], cwd=project, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_within_the_noise_is_neutral_below_is_a_regression_and_baseline_marks_the_reference(project):
    bench = _script(project, "bench.py", BENCH)
    outcomes = []
    for value, extra in (("82.9", ()), ("70", ()), ("88", ("--baseline",))):
        res = _kb_run(project, "--no-capture", *extra, "--", sys.executable, bench, value)
        assert res.returncode == 0, res.stderr
        outcomes.append(_written(project, res)["outcome"])
    assert outcomes == ["neutral", "regressed", "baseline"]


def test_a_failed_run_keeps_its_exit_status_error_headline_and_known_blocker(project):
    fail = _script(project, "fuse.py", """\
        import sys
        print("Loading FlashInfer allreduce fusion...", flush=True)
        print("Traceback (most recent call last):", file=sys.stderr)
        print('  File "fuse.py", line 10, in <module>', file=sys.stderr)
        print("RuntimeError: No supported CUDA architectures found for major versions [9, 10].", file=sys.stderr)
        sys.exit(3)
    """)
    res = _kb_run(project, "--no-capture", "--stack", "cuda-12.8", "--", sys.executable, fail)
    assert res.returncode == 3
    assert "RuntimeError: No supported CUDA architectures" in res.stderr  # stderr streamed to stderr
    rec = _written(project, res)
    assert rec["outcome"] == "failed" and rec["stack"] == "cuda-12.8"
    assert rec["error"].splitlines()[-1] == "RuntimeError: No supported CUDA architectures found for major versions [9, 10]."
    assert rec["blocked_by"] == ["flashinfer-allreduce-fusion-jit-no-sm120"]
    assert "kb run: exit status 3 after" in res.stderr
    # running the same command again proposes it as a retry of the first
    again = _kb_run(project, "--no-capture", "--stack", "cuda-12.8", "--", sys.executable, fail)
    first = _path(res).stem
    assert _written(project, again)["retry_of"] == first
    assert f"retry_of {first}: it ran the same command and failed" in again.stderr


def test_an_output_no_reader_knows_is_inconclusive_and_says_why(project):
    odd = _script(project, "odd.py", 'print("all done, see the dashboard")\n')
    res = _kb_run(project, "--no-capture", "--json", "--", sys.executable, odd)
    assert res.returncode == 0
    out = json.loads(res.stdout)  # stdout holds the JSON alone: the command's output went to stderr
    assert "all done, see the dashboard" in res.stderr
    assert out["outcome"] == "inconclusive" and out["exit"] == 0
    assert out["reasons"][0] == "no figure read from the output (none of kb's readers knows it): inconclusive"
    rec = yaml.safe_load((project / out["path"]).read_text(encoding="utf-8"))
    assert "metrics" not in rec and "all done, see the dashboard" in rec["notes"]


def test_a_benchmark_tools_documented_output_gives_the_headline(project):
    serve = _script(project, "serve.py", """\
        print("============ Serving Benchmark Result ============")
        print("Successful requests:                     200")
        print("Benchmark duration (s):                  41.22")
        print("Total input tokens:                      204800")
        print("Total generated tokens:                  25600")
        print("Request throughput (req/s):              4.85")
        print("Output token throughput (tok/s):         621.04")
        print("Total Token throughput (tok/s):          5589.42")
        print("---------------Time to First Token----------------")
        print("Mean TTFT (ms):                          312.50")
        print("Median TTFT (ms):                        298.11")
        print("P99 TTFT (ms):                           701.90")
        print("==================================================")
    """)
    res = _kb_run(project, "--no-capture", "--", sys.executable, serve)
    rec = _written(project, res)
    assert next(iter(rec["metrics"])) == "output_throughput"
    assert rec["metrics"]["output_throughput"] == "621.04 tok/s"
    assert rec["outcome"] == "improved"


def test_sigint_to_kb_reaches_the_command_and_the_run_is_recorded_as_interrupted(project):
    slow = _script(project, "slow.py", """\
        import time
        print("step 1", flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-m", "kb", "run", "--no-capture", "--", sys.executable, slow], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    assert proc.stdout.readline() == "step 1\n"  # the command is running
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "KeyboardInterrupt" in err  # the command got it
    rec = _written(project, subprocess.CompletedProcess([], proc.returncode, out, err))
    assert rec["outcome"] == "inconclusive"
    assert "kb run: interrupted (SIGINT) after" in err


def test_on_a_terminal_ctrl_c_goes_to_the_command_and_progress_bars_see_a_terminal(project):
    prog = _script(project, "prog.py", """\
        import sys, time
        print("tty", sys.stdout.isatty(), flush=True)
        for i in range(400):
            print(f"\\r{i}%", end="", flush=True)
            time.sleep(0.05)
    """)
    pid, fd = os.forkpty()
    if pid == 0:  # the child: kb on a terminal of its own, as from an interactive shell
        os.chdir(project)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execve(sys.executable, [sys.executable, "-m", "kb", "run", "--no-capture", "--", sys.executable, prog], _env())
    out = b""
    deadline = time.monotonic() + 60
    sent = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
        if not sent and b"3%" in out:
            os.write(fd, b"\x03")  # Ctrl-C typed at the terminal
            sent = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    text = out.decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(status) == 130, text
    assert "tty True" in text and "KeyboardInterrupt" in text
    assert "kb run: interrupted (SIGINT)" in text
    rec = _written(project, subprocess.CompletedProcess([], 130, "", text.replace("\r\n", "\n")))
    assert rec["outcome"] == "inconclusive"
    assert "\r" not in rec["notes"]


def test_a_command_that_cannot_start_is_127_or_126_and_not_recorded(project):
    res = _kb_run(project, "--no-capture", "--", "no-such-program-kb-test", "--x")
    assert res.returncode == 127
    assert res.stderr.strip() == "kb run: not recorded: cannot run 'no-such-program-kb-test': No such file or directory"
    (project / "bench.py").write_text("print(1)\n", encoding="utf-8")  # not executable
    res = _kb_run(project, "--no-capture", "--", "./bench.py")
    assert res.returncode == 126 and "kb run: not recorded: cannot run './bench.py': Permission denied" in res.stderr
    assert sorted(p.name for p in (project / "records" / "attempts").iterdir()) == sorted(
        p.name for p in (CAMPAIGN / "attempts").iterdir())


def test_a_command_killed_by_a_signal_gives_128_plus_n(project):
    die = _script(project, "die.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    res = _kb_run(project, "--no-capture", "--", sys.executable, die)
    assert res.returncode == 128 + signal.SIGKILL
    assert _written(project, res)["outcome"] == "failed"


def test_the_exit_status_survives_records_kb_cannot_write_to(tmp_path):
    (tmp_path / "records").mkdir()  # no campaign: the attempt cannot be recorded
    res = subprocess.run([sys.executable, "-m", "kb", "run", "--no-capture", "--", sys.executable, "-c", "raise SystemExit(4)"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 4
    assert "kb run: not recorded:" in res.stderr and "--campaign" in res.stderr


def test_keep_output_writes_the_whole_output_redacted_under_assets(project):
    noisy = _script(project, "noisy.py", """\
        for i in range(200):
            print(f"line {i}")
        print("using token hf_abcdefghijklmnopqrstuvwxyzABCD1234")
        print("output_throughput: 90 tok/s")
    """)
    res = _kb_run(project, "--no-capture", "--keep-output", "--", sys.executable, noisy)
    rec = _written(project, res)
    [src] = rec["source"]
    assert src["file"].startswith("assets/runs/") and src["file"].endswith(".log")
    kept = (project / "records" / src["file"]).read_text(encoding="utf-8").splitlines()
    assert len(kept) == 202 and kept[0] == "line 0" and kept[-1] == "output_throughput: 90 tok/s"
    assert "hf_abcdefghijklmnopqrstuvwxyzABCD1234" not in "\n".join(kept)
    assert "hf_abcdefghijklmnopqrstuvwxyzABCD1234" not in (project / _path(res)).read_text()
    assert "[… 147 lines cut …]" in rec["notes"]  # the notes keep an excerpt: 15 first and 40 last lines
    assert not list((project / "records" / "assets" / "runs").glob(".*"))  # no temporary file left


def test_the_stack_is_captured_after_the_run(project):
    fake = project / "bin"
    fake.mkdir()
    smi = fake / "nvidia-smi"
    smi.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        case "$*" in
          *--query-gpu*) cat '{H200}/nvidia-smi-query.csv' ;;
          *topo*) cat '{H200}/nvidia-smi-topo-m.txt' ;;
          *) cat '{H200}/nvidia-smi.txt' ;;
        esac
    """), encoding="utf-8")
    nvcc = fake / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n", encoding="utf-8")
    smi.chmod(0o755)
    nvcc.chmod(0o755)
    bench = _script(project, "bench.py", BENCH)
    env = _env(PATH=f"{fake}:{os.environ['PATH']}")
    env.pop("CUDA_HOME", None)
    res = _kb_run(project, "--stack", "cuda-12.8", "--", sys.executable, bench, "90", env=env)
    assert res.returncode == 0, res.stderr
    rec = _written(project, res)
    assert rec["stack"] == "cuda-12.8"
    assert rec["components"]["driver"] == "580.159.04"  # read from nvidia-smi; cuda 12.8.93 is the stack's own
    assert "cuda" not in rec["components"] or rec["components"]["cuda"] != "12.8"


def test_output_capture_is_bounded_and_hashes_every_byte():
    import hashlib

    cap = OutputCapture(head_chars=1000, tail_chars=2000)
    blob = b"".join(f"progress {i}\r\x1b[1mline {i}\x1b[0m\n".encode() for i in range(100_000))
    for k in range(0, len(blob), 4093):  # chunks that split lines and escape sequences
        cap.feed(blob[k:k + 4093])
    cap.close()
    assert cap.size == len(blob) and cap.sha256 == hashlib.sha256(blob).hexdigest()
    assert cap.lines == 100_000
    text = cap.text()
    assert len(text) < 3200
    lines = text.splitlines()
    assert lines[0] == "line 0" and lines[-1] == "line 99999"
    assert any(line.startswith("[… ") and line.endswith(" lines cut …]") for line in lines)


def test_clean_line_option_flags_and_titles():
    assert clean_line("\x1b]0;title\x07\x1b[2K\r 10% |██   |\r100% |█████|\r") == "100% |█████|"
    assert option_flags(["vllm", "serve", "m", "--tensor-parallel-size", "2", "-O3", "--no-enable-prefix-caching"]) == [
        "--tensor-parallel-size 2", "-O3", "--no-enable-prefix-caching"]
    assert option_flags(["./bench", "--offset", "-1", "--", "x"]) == ["--offset -1"]
    assert title_of(["torchrun", "--nproc-per-node", "8", "train.py"]) == "torchrun --nproc-per-node 8 train.py"


def test_a_campaign_without_a_baseline_figure_compares_with_its_latest_baseline_run(project):
    camp = project / "records" / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    text = camp.read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.startswith(("baseline:", "baseline_attempt:"))]
    camp.write_text("\n".join(kept) + "\n", encoding="utf-8")
    bench = _script(project, "bench.py", BENCH)
    first = _kb_run(project, "--no-capture", "--", sys.executable, bench, "90")  # the campaign's reviewed baseline run
    assert _written(project, first)["outcome"] == "improved"
    assert "against 82 tok/s (the latest baseline run, 2026-02-19-baseline-tp8): +9.8 %" in first.stderr
    base = _kb_run(project, "--no-capture", "--baseline", "--", sys.executable, bench, "100")
    base_id = _path(base).stem
    res = _kb_run(project, "--no-capture", "--", sys.executable, bench, "90")
    assert _written(project, res)["outcome"] == "regressed"
    assert f"against 100 tok/s (the latest baseline run, {base_id}): -10.0 %" in res.stderr


def test_no_baseline_anywhere_is_inconclusive_and_says_how_to_get_one(project):
    records = project / "records"
    camp = records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    kept = [ln for ln in camp.read_text(encoding="utf-8").splitlines() if not ln.startswith(("baseline:", "baseline_attempt:"))]
    camp.write_text("\n".join(kept) + "\n", encoding="utf-8")
    for f in (records / "attempts").glob("*.yaml"):
        if "outcome: baseline" in f.read_text(encoding="utf-8"):
            f.unlink()
    bench = _script(project, "bench.py", BENCH)
    res = _kb_run(project, "--no-capture", "--", sys.executable, bench, "90")
    assert _written(project, res)["outcome"] == "inconclusive"
    assert ("output_throughput 90 tok/s read, but the campaign has no baseline of output_throughput in tok/s to "
            "compare with (a reference run: kb run --baseline): inconclusive") in res.stderr


def test_a_new_baseline_run_is_what_later_runs_compare_with(project):
    """The campaign names a baseline figure (82 tok/s); a run marked --baseline later is the
    reference from then on, for the campaign's metric and for a metric the campaign has no
    figure of."""
    fast = _script(project, "fast.py", 'print("output_throughput: 100 tok/s")\nprint("median_tpot: 12.5 ms")\n')
    slow = _script(project, "slow.py", 'print("output_throughput: 91.2 tok/s")\nprint("median_tpot: 14.0 ms")\n')
    base = _kb_run(project, "--no-capture", "--baseline", "--", sys.executable, fast)
    base_id = _path(base).stem
    res = _kb_run(project, "--no-capture", "--", sys.executable, slow)
    assert _written(project, res)["outcome"] == "regressed"
    assert f"against 100 tok/s (the latest baseline run, {base_id}): -8.8 %" in res.stderr
    tpot = _script(project, "tpot.py", 'print("median_tpot: 14.0 ms")\n')
    res = _kb_run(project, "--no-capture", "--", sys.executable, tpot)
    assert _written(project, res)["outcome"] == "regressed"  # lower is better for a time per token
    assert f"median_tpot 14 ms against 12.5 ms (the latest baseline run, {base_id}): +12.0 %, lower is better" in res.stderr


def test_a_bug_while_recording_still_exits_with_the_commands_status(project, monkeypatch):
    from click.testing import CliRunner

    import kb.usecases.run as runner
    from kb.cli import cli

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(runner, "record_run", broken)
    monkeypatch.chdir(project)
    res = CliRunner().invoke(cli, ["run", "--no-capture", "--", sys.executable, "-c", "raise SystemExit(5)"])
    assert res.exit_code == 5
    assert "kb run: not recorded: unexpected RuntimeError: disk on fire (please report it)" in res.stderr
