"""`kb why` names a dispute on an attempt's root causes: a root the campaign's records resolve on the
current stack, while a catalog root the same attempt reached (by its error's signature) still stands.
The campaign is the one written blind for `kb roots` (tests/test_roots_blind.py)."""

from __future__ import annotations

import json

from test_roots_blind import FILES, ROOT_CUDA, TOOLCHAIN, kb, rows


def test_why_names_the_dispute_of_every_attempt_both_roots_reach(write_tree):
    root = write_tree(FILES)
    out = json.loads(kb(root, "roots", "--json").stdout)
    both = sorted(set(rows(out)[ROOT_CUDA]["attempts"]) & set(rows(out)[TOOLCHAIN]["attempts"]))
    assert both, "the campaign has attempts reaching both roots"
    for aid in both:
        data = json.loads(kb(root, "why", aid, "--json").stdout)
        assert [(d["root"], d["record"], d["source"], d["claim"]) for d in data["disputes"]] == [
            (ROOT_CUDA, TOOLCHAIN, "catalog blackwell", f"stands on {out['current_stack']}")]
        text = kb(root, "why", aid).stdout
        assert (f"  disputed: {ROOT_CUDA} stands no more on the current stack, but catalog blackwell's "
                f"\"{rows(out)[TOOLCHAIN]['title']}\" ({TOOLCHAIN}), which this attempt also reached, still stands on "
                f"{out['current_stack']}") in text.splitlines()


def test_why_names_no_dispute_where_the_roots_agree(write_tree):
    root = write_tree(FILES)
    out = json.loads(kb(root, "roots", "--json").stdout)
    reached = {a for r in out["roots"] for a in r["attempts"]}
    disputed = set(rows(out)[ROOT_CUDA]["attempts"]) & set(rows(out)[TOOLCHAIN]["attempts"])
    quiet = sorted(reached - disputed)
    assert quiet
    for aid in quiet:
        assert json.loads(kb(root, "why", aid, "--json").stdout)["disputes"] == [], aid
