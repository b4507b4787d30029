"""Every command the README shows runs: each ``kb ...`` (and ``mkdir ...``) line of its ``sh``
blocks is run, in order, in a scratch folder (a copy of the frozen campaign, or an empty folder
for the block that starts a campaign), and must exit 0. A block right after a line
``<!-- docs-test: skip -->`` is not run (say why next to it)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from conftest import CAMPAIGN_RECORDS, ROOT

README = ROOT / "README.md"


def blocks() -> list[tuple[int, list[str]]]:
    """``(line number, [kb command lines])`` of every ``sh`` block, continuation lines joined."""
    lines = README.read_text(encoding="utf-8").splitlines()
    out: list[tuple[int, list[str]]] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() in ("```sh", "```bash", "```console"):
            skip = i > 0 and "docs-test: skip" in lines[i - 1] or i > 1 and "docs-test: skip" in lines[i - 2]
            start = i + 1
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            text = "\n".join(body).replace("\\\n", " ")
            cmds = []
            for line in text.splitlines():
                line = line.strip()
                for part in line.split("&&"):
                    part = part.strip()
                    if part.startswith(("kb ", "mkdir ")):
                        cmds.append(re.sub(r"\s+#\s.*$", "", part))
            if cmds and not skip:
                out.append((start, cmds))
        i += 1
    return out


BLOCKS = blocks()


def test_the_readme_shows_commands():
    assert len(BLOCKS) >= 3 and sum(len(c) for _n, c in BLOCKS) >= 10


@pytest.mark.parametrize("start, commands", BLOCKS, ids=[f"README.md:{n}" for n, _c in BLOCKS])
def test_every_readme_command_runs(tmp_path, start, commands):
    work = tmp_path / "project"
    work.mkdir()
    if not any(c.startswith("kb new platform") for c in commands):  # that block starts from nothing
        shutil.copytree(CAMPAIGN_RECORDS, work / "records")
        shutil.copy(ROOT / "mkdocs.yml", work / "mkdocs.yml")
        shutil.copytree(ROOT / "docs", work / "docs")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("KB_RECORDS", None)
    for command in commands:
        if command.startswith("mkdir "):
            for folder in shlex.split(command)[1:]:
                (work / folder).mkdir()
            continue
        argv = [sys.executable, "-m", "kb", *shlex.split(command)[1:]]
        proc = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, f"README.md:{start}: {command}\n{proc.stdout}\n{proc.stderr}"
