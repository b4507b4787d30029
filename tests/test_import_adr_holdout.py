"""The held-out ADR logs: one re-created log of each family (adr-tools, MADR, log4brains,
alphagov/govuk-aws, JabRef, folder-per-decision), written with its truth before the importer was
changed for them, and scored once (tests/fixtures/adr/README.md, "Held-out logs"). The importer was
never tuned on them; these tests hold the score recorded then, so that a change that costs a right
answer shows here, and one that wins one is recorded on purpose.
"""

from __future__ import annotations

import pytest
from adr_logs import FIXTURES, copied_images, run_log

HOLDOUT = FIXTURES / "holdout"

SCORED: dict[str, tuple[str, list[str]]] = {
    "adr-tools": ("6/6 decisions right (status 6/6, date 6/6, date_from 6/6, status_from 6/6, supersedes 6/6)", []),
    "folder-per-decision": ("8/8 decisions right (status 8/8, date 8/8, date_from 8/8, status_from 8/8, supersedes 8/8, title 2/2, deciders 1/1)", []),
    "govuk-aws": ("9/9 decisions right (status 9/9, date 9/9, date_from 9/9, status_from 9/9, verbatim 1/1, supersedes 9/9, title 2/2)", []),
    "jabref": ("9/9 decisions right (status 9/9, date 9/9, date_from 9/9, status_from 9/9, supersedes 9/9, chosen 2/2, options 8/8, deciders 1/1)", []),
    "log4brains": ("6/6 decisions right (status 6/6, date 6/6, date_from 6/6, status_from 6/6, supersedes 6/6, chosen 2/2, options 4/4)", []),
    "madr": ("6/6 decisions right (status 6/6, date 6/6, date_from 6/6, status_from 6/6, verbatim 1/1, supersedes 6/6, chosen 5/5, options 6/6)", []),
}
"""Family → (score, misses) of the one scoring run at the commit that added this table (no miss in any)."""


@pytest.mark.parametrize("family", sorted(SCORED))
def test_held_out_log_scores_as_recorded(tmp_path, family):
    out = run_log(HOLDOUT / family, tmp_path)
    score, misses = SCORED[family]
    assert (out.score(), out.misses) == (score, misses), out.imported.stderr


@pytest.mark.parametrize("family", sorted(SCORED))
def test_held_out_log_checks_clean_with_its_images(tmp_path, family):
    out = run_log(HOLDOUT / family, tmp_path)
    assert out.imported.exit_code == 0, out.imported.output
    assert out.checked.exit_code == 0, out.checked.output
    assert len(copied_images(tmp_path / "records")) == out.truth["images"]
