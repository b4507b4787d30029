"""A catalog listed only in mkdocs.yml's kb plugin options is read by kb's commands too (issue 12:
a campaign lists its catalogs in the plugin options and for the CLI alike), and kept results
(the check's report, query answers) follow a change of that list."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.cli.app import plugin_catalogs

CASE = Path(__file__).resolve().parent / "fixtures" / "cases" / "truth" / "contradiction-success-where-blocker-applies"
# the campaign's own blocker's warning names the catalog's record of the same gate (one warning per
# attempt and kind: the catalog's is folded into it)
WARNING = "; and 1 more like it: about flashinfer-allreduce-fusion-sm12x-gate"
CONFIG = """site_name: Team site
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
plugins:
  - search
  - kb:
      records: {records}
      catalogs: [{catalogs}]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The contradiction case's records (their campaign lists no catalog) in a project folder
    that is the current folder, with its cache inside."""
    shutil.copytree(CASE / "records", tmp_path / "records")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KB_CACHE", raising=False)
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / ".kb-cache"))
    return tmp_path


def write_config(project: Path, catalogs: str, records: str = "records") -> None:
    (project / "mkdocs.yml").write_text(CONFIG.format(records=records, catalogs=catalogs), encoding="utf-8")


def kb(*args: str):
    return CliRunner().invoke(cli, ["--records", "records", *args])


def test_plugin_catalogs_reads_the_kb_plugin_of_this_records_folder(project):
    assert plugin_catalogs(Path("records")) == ()  # no mkdocs.yml
    write_config(project, "blackwell, ../team-catalog")
    assert plugin_catalogs(Path("records")) == ("blackwell", "../team-catalog")
    assert plugin_catalogs(project / "records") == ("blackwell", "../team-catalog")
    write_config(project, "blackwell", records="other")  # the plugin publishes another folder
    assert plugin_catalogs(Path("records")) == ()
    (project / "mkdocs.yml").write_text("plugins: [search, {kb: {catalogs: [blackwell]}}]\n", encoding="utf-8")
    assert plugin_catalogs(Path("records")) == ("blackwell",)  # records defaults to "records"
    (project / "mkdocs.yml").write_text("plugins: [search\n", encoding="utf-8")
    assert plugin_catalogs(Path("records")) == ()  # kb build reports a broken file itself


def test_check_and_queries_read_the_catalog_the_site_adds(project):
    assert WARNING not in kb("check").stdout
    write_config(project, "blackwell")
    r = kb("check")
    assert r.exit_code == 0, r.output
    assert WARNING in r.stdout
    r = kb("unblocks", "cuda=13.0", "--from", "cu128", "--all")
    assert "flashinfer-allreduce-fusion-sm12x-gate: needs flashinfer>=0.6.17" in r.stdout
    # the list changes: neither the kept report nor the kept answer is given again
    write_config(project, "")
    assert WARNING not in kb("check").stdout
    assert "flashinfer-allreduce-fusion-sm12x-gate" not in kb("unblocks", "cuda=13.0", "--from", "cu128", "--all").stdout


def test_kb_log_matches_against_the_catalog_the_site_adds(project):
    err = project / "error.txt"
    err.write_text("Traceback (most recent call last):\nKeyError: 12\n", encoding="utf-8")
    args = ("log", "--dry-run", "--campaign", "c", "--stack", "cu130-fi064", "--title", "symm-mem allreduce",
            "--approach", "symm-mem allreduce", "--outcome", "failed", "--error-file", str(err))
    assert "sglang-symm-mem-size-table-keyerror-12" not in kb(*args).output
    write_config(project, "blackwell")
    r = kb("log", "--dry-run", "--campaign", "c", "--stack", "cu130-fi064", "--title", "symm-mem allreduce", "--approach", "symm-mem allreduce",
           "--outcome", "failed", "--error-file", str(err))
    assert r.exit_code == 0, r.output
    assert "sglang-symm-mem-size-table-keyerror-12" in r.output


def test_an_unknown_catalog_in_mkdocs_yml_is_a_located_problem(project):
    write_config(project, "nosuch")
    r = kb("check")
    assert r.exit_code == 1
    assert "mkdocs.yml" in r.output and "unknown catalog 'nosuch'" in r.output
