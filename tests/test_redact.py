"""Redaction of secrets and personal details (kb.redact)."""

from __future__ import annotations

import doctest

import pytest

import kb.redact as redact_module
from kb.redact import Redactor, redact_text


def test_doctests():
    assert doctest.testmod(redact_module).failed == 0


@pytest.mark.parametrize(
    ("text", "expected", "kind"),
    [
        ("HF_TOKEN=hf_Qm7rT2xVb9LpW4nZ8cK1dY6sA3fJ0gHeUo python x", "HF_TOKEN=<secret> python x", "token"),
        ("export WANDB_API_KEY=0123456789abcdef", "export WANDB_API_KEY=<secret>", "env-secret"),
        ("DB_PASSWORD='hunter2 x' ./run", "DB_PASSWORD=<secret> ./run", "env-secret"),
        ("serve --api-key abcdef123456 --tp 8", "serve --api-key <secret> --tp 8", "cli-secret"),
        ("login --hf-token=abcdef123456", "login --hf-token=<secret>", "cli-secret"),
        ("git clone https://bob:s3cr3t@git.example.com/x.git", "git clone https://<user>:<secret>@git.example.com/x.git", "url-password"),
        ("curl -H 'Authorization: Bearer abc123def456ghi789'", "curl -H 'Authorization: Bearer <secret>'", "token"),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token <secret>", "token"),
        ("key AKIAIOSFODNN7EXAMPLE here", "key <secret> here", "token"),
        ("password = 'hunter2hunter'", "password = '<secret>'", "env-secret"),
        ("ssh root@10.20.30.40 'nvidia-smi'", "ssh <host> 'nvidia-smi'", "host"),
        ("ssh -p 2222 gpu-node-7 nvidia-smi", "ssh -p 2222 <host> nvidia-smi", "host"),
        ("scp run.log gpu3:/tmp/", "scp run.log <host>:/tmp/", "host"),
        ("curl http://192.168.1.20:30000/health", "curl http://<host>:30000/health", "private-ip"),
        ("server at 172.20.0.5 and 100.70.1.2", "server at <host> and <host>", "private-ip"),
        ("open /home/alex/work/x and /Users/sam/y", "open /home/<user>/work/x and /Users/<user>/y", "home-user"),
        ("mail alex.moreau@example.org now", "mail <email> now", "email"),
        ("pull from build01.corp.internal", "pull from <host>", "host"),
    ],
)
def test_redacts(text, expected, kind):
    out, counts = redact_text(text)
    assert out == expected
    assert counts[kind] >= 1


@pytest.mark.parametrize(
    "text",
    [
        "python -m sglang.launch_server --tp 8 --cuda-graph-max-bs 128 --speculative-algorithm EAGLE3",
        "Output token throughput (tok/s):         89.52",
        "Build cuda_12.8.r12.8/compiler.35583870_0",
        "| NVIDIA-SMI 590.48.01   Driver Version: 590.48.01   CUDA Version: 13.1 |",
        "2.11.0.dev20260220+cu130 13.0 0.6.9",
        "NCCL_ALGO=Tree NCCL_PROTO=LL MAX_TOKENS=512 python x",
        "pip install --index-url https://download.pytorch.org/whl/nightly/cu130 torch",
        "KeyError: 12",
        "cd /root/sglang && ls 127.0.0.1",
        "SECRET_KEY=$SECRET_KEY ./serve",
    ],
)
def test_leaves_ordinary_log_text_alone(text):
    out, counts = redact_text(text)
    assert out == text
    assert not counts


def test_learned_user_name_is_removed_elsewhere():
    redactor = Redactor()
    redactor.learn("/home/alex/work/kimi-serving")
    assert redactor.redact("alex ran it; Alexander and alexa too") == "<user> ran it; Alexander and alexa too"
    assert redactor.counts == {"home-user": 1}


def test_system_user_names_are_not_learned():
    redactor = Redactor()
    redactor.learn("/home/ubuntu/x /home/root/y")
    assert redactor.names == set()
    assert redactor.redact("Ubuntu 24.04 as root") == "Ubuntu 24.04 as root"


def test_redaction_is_idempotent():
    redactor = Redactor()
    once = redactor.redact("ssh root@10.20.30.40 HF_TOKEN=hf_Qm7rT2xVb9LpW4nZ8cK1dY6sA3fJ0gHeUo --api-key abcd1234efgh")
    counts = dict(redactor.counts)
    assert redactor.redact(once) == once
    assert dict(redactor.counts) == counts


def test_summary():
    redactor = Redactor()
    assert redactor.summary() == "nothing"
    redactor.redact("a@b.example.com and 10.0.0.7")
    assert redactor.summary() == "email 1, private-ip 1"


def test_repository_at_commit_is_no_user_at_host():
    redactor = Redactor()
    assert redactor.redact("fork jexample/vllm@6804e1b and pp512@d4096") == "fork jexample/vllm@6804e1b and pp512@d4096"
    assert redactor.redact("ran as bench@gpu-box-00b4.lab.example.org") == "ran as <email>"  # e-mail shaped


@pytest.mark.parametrize("text", ["asynchronous@1.00 req/sec", "synchronous@2.5 req/s", "sweep rate@16 and rate@64.0",
                                  "constant@0.75 req/sec"])
def test_name_at_a_number_is_no_user_at_host(text):
    assert Redactor().redact(text) == text  # guidellm's benchmark names: a rate, not a host


@pytest.mark.parametrize("text, want", [("login as ops@gpu01.cluster:", "login as <email>:"),
                                        ("scp out.json root@10.20.30.40:/tmp", "scp out.json <host>:/tmp"),
                                        ("ops@node-7.hpc then ran", "<email> then ran")])
def test_user_at_a_dotted_or_numeric_host_is_still_redacted(text, want):
    assert Redactor().redact(text) == want


def test_bare_host_names_the_log_shows_as_hosts_are_redacted_everywhere():
    redactor = Redactor()
    text = ("fork on host gpu-box-00b4, then ran as bench@gpu-box-00b4.lab.example.org\n"
            "gpu-node-a3:51877:51990 [0] NCCL WARN NET/IB\ngpu-node-a3: Test NCCL failure common.cu:1279")
    assert redactor.redact(text) == ("fork on host <host>, then ran as <email>\n"
                                     "<host>:51877:51990 [0] NCCL WARN NET/IB\n<host>: Test NCCL failure common.cu:1279")
    assert redactor.redact("later gpu-box-00b4 again; sm-120 and H100 are no hosts") == (
        "later <host> again; sm-120 and H100 are no hosts")
