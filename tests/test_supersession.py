"""Decision status against `supersedes`: only a decision that was accepted retires another (MADR's
and adr-tools' "Superseded by"); a proposed one leaves it standing, with a warning naming the
pending change; a rejected one supersedes nothing, an error naming it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from test_store import valid_tree

from kb.cli import cli


def decision(status: str, supersedes: list[str] | None = None) -> str:
    text = (f"title: Decision {status}\nstatus: {status}\ndate: 2026-03-01\ncontext: why\n"
            "considered_options:\n  - title: Go\n    evidence: [a]\n  - title: Stay\noutcome:\n  chosen: Go\n")
    return text + (f"supersedes: [{', '.join(supersedes)}]\n" if supersedes else "")


def check(write_tree, decisions: dict[str, str], *args: str):
    root = valid_tree(write_tree)
    for rid, text in decisions.items():
        (root / f"decisions/{rid}.yaml").write_text(text, encoding="utf-8")
    return CliRunner().invoke(cli, ["--records", str(root), "check", *args])


@pytest.mark.parametrize(("newer", "older"), [
    ("accepted", "superseded"),
    ("deprecated", "superseded"),   # accepted once, retired since: what it superseded stays superseded
    ("superseded", "superseded"),   # a chain: o ← n ← (a third, accepted)
])
def test_a_decision_that_was_accepted_retires_what_it_supersedes(write_tree, newer, older):
    decisions = {"o": decision(older), "n": decision(newer, ["o"])}
    if newer == "superseded":
        decisions["third"] = decision("accepted", ["n"])
    r = check(write_tree, decisions)
    assert r.exit_code == 0, r.output
    assert r.stdout == ""


@pytest.mark.parametrize("older", ["accepted", "deprecated", "proposed"])
def test_an_accepted_decision_demands_what_it_supersedes_be_marked(write_tree, older):
    r = check(write_tree, {"o": decision(older), "n": decision("accepted", ["o"])})
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        f"records/decisions/n.yaml:11: supersedes.0: supersedes 'o', whose status is '{older}'; set its status to 'superseded'"]


@pytest.mark.parametrize("older", ["accepted", "deprecated"])
def test_a_proposed_superseder_leaves_the_older_standing_with_a_warning(write_tree, older):
    r = check(write_tree, {"o": decision(older), "n": decision("proposed", ["o"])})
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [
        f"records/decisions/n.yaml:11: supersedes.0: warning: would supersede o ('Decision {older}', {older}) once "
        "accepted; until then o stands: accept this decision (then mark o superseded) or reject it"]
    assert check(write_tree, {}, "--strict").exit_code == 1


def test_superseded_only_by_a_proposed_one_is_an_error_naming_it(write_tree):
    r = check(write_tree, {"o": decision("superseded"), "n": decision("proposed", ["o"])})
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "records/decisions/o.yaml:2: status: status is 'superseded' but only n (proposed) lists it in 'supersedes'; "
        "a decision stands until the one replacing it is accepted: set its status back (e.g. 'accepted'), or accept "
        "the newer one"]


def test_superseded_by_an_accepted_and_a_proposed_one_is_fine(write_tree):
    r = check(write_tree, {"o": decision("superseded"), "n": decision("accepted", ["o"]),
                           "pending": decision("proposed", ["o"])})
    assert r.exit_code == 0, r.output
    assert r.stdout == ""  # nothing pending: o is already superseded


@pytest.mark.parametrize(("older", "expected"), [
    ("accepted", ["records/decisions/n.yaml:11: supersedes.0: status is 'rejected', so it supersedes nothing, yet it "
                  "lists 'o'; remove it from supersedes (the rejected proposal's text can say what it would have replaced)"]),
    ("superseded", ["records/decisions/n.yaml:11: supersedes.0: status is 'rejected', so it supersedes nothing, yet it "
                    "lists 'o'; remove it from supersedes (the rejected proposal's text can say what it would have replaced)",
                    "records/decisions/o.yaml:2: status: status is 'superseded' but no accepted decision lists it in "
                    "'supersedes'; add it to the newer decision's supersedes"]),
])
def test_a_rejected_decision_supersedes_nothing(write_tree, older, expected):
    r = check(write_tree, {"o": decision(older), "n": decision("rejected", ["o"])})
    assert r.exit_code == 1
    assert r.stdout.splitlines() == expected


STATED = "source:\n  - file: doc/adr/0001-o.md\n    field: status\n    locator: line 7\n    quote: Superseded by [2. N](0002-n.md)\n"


@pytest.mark.parametrize("listers", [{"n": decision("proposed", ["o"])}, {"n": decision("rejected")}, {}])
def test_a_superseded_status_quoted_from_its_adr_is_a_warning_not_an_error(write_tree, listers):
    # "Superseded by X" in an imported ADR is the log's own statement: kb keeps it, and says that a
    # decision stands until the one replacing it is accepted
    r = check(write_tree, {"o": decision("superseded") + STATED, **listers})
    assert r.exit_code == 0, r.output
    named = "n (proposed)" if "supersedes" in listers.get("n", "") else "none"
    assert [ln for ln in r.stdout.splitlines() if "o.yaml" in ln] == [
        "records/decisions/o.yaml:2: status: warning: superseded as its ADR states ('Superseded by [2. N](0002-n.md)'), "
        f"but no accepted decision lists it in supersedes (listed by: {named}): a decision stands until the one "
        "replacing it is accepted; accept the newer one, or correct the status"]
    assert check(write_tree, {}, "--strict").exit_code == 1


def test_a_superseded_status_without_a_quote_is_still_an_error(write_tree):
    source = "source:\n  - file: doc/adr/0001-o.md\n    field: status\n"
    r = check(write_tree, {"o": decision("superseded") + source, "n": decision("proposed", ["o"])})
    assert r.exit_code == 1
    assert any("o.yaml:2: status: status is 'superseded' but only n (proposed)" in ln for ln in r.stdout.splitlines())
