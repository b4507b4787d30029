"""`kb serve`: serves the site from a user's own mkdocs.yml (tags such as !!python/name included)
and rebuilds when a record changes."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from conftest import CAMPAIGN_RECORDS

USER_CONFIG = """\
site_name: my team's campaigns
theme:
  name: material
  font: false
plugins:
  - search
  - kb
markdown_extensions:
  - admonition
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, deadline: float) -> str:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError, TimeoutError):  # a read timeout while it rebuilds, too
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def test_kb_serve_uses_the_users_config_and_rebuilds_on_a_record_change(tmp_path):
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(USER_CONFIG, encoding="utf-8")
    shutil.copytree(CAMPAIGN_RECORDS, project / "campaign-records")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kb", "--records", "campaign-records", "serve",
                             "-a", f"127.0.0.1:{port}"], cwd=project, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}/attempts/2026-02-23-nccl-tree/"
        page = _get(url, time.monotonic() + 60)
        assert "NCCL Tree algorithm" in page and "my team&#39;s campaigns" in page
        record = project / "campaign-records" / "attempts" / "2026-02-23-nccl-tree.yaml"
        record.write_text(record.read_text(encoding="utf-8").replace("title: NCCL Tree algorithm",
                                                                     "title: NCCL Tree algorithm, renamed"),
                          encoding="utf-8")
        deadline = time.monotonic() + 60
        while "NCCL Tree algorithm, renamed" not in _get(url, deadline):
            assert time.monotonic() < deadline, "the site was not rebuilt after the record changed"
            time.sleep(0.5)
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert "Traceback" not in out, out
