"""The per-graph indexes (kb.queries.index) give the answers of the plain definitions.

Each optimised query is compared, on seeded campaigns, with a straightforward reference kept
here (the pairwise scans the queries used before the indexes): retries, credit, findings,
signature matches, the graph's cached adjacency. The campaigns are written by ``_write``
below (retry_of, baselines, overrides, blocker flags, two platforms, regex signatures) and by
bench/gen_campaign.py; counts are pinned so a generator that stops exercising a path fails.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Decision
from kb.pipeline import load
from kb.queries import (
    attempt_credit,
    decision_credit,
    findings,
    findings_of,
    match_signatures,
    retried,
    retries_of,
    unblocks,
    upgrade_paths,
    why,
)
from kb.queries.credit import is_retry, stack_diff
from kb.queries.resolution import attempt_flags, flag_names, platform_of, resolve_blockers

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from gen_campaign import generate  # noqa: E402

FLAGS = ["--tp 8", "--tp 4", "--opt-a", "--opt-b 2", "--opt-c", "--cuda-graph-max-bs 128"]
ENV = [("NCCL_ALGO", "Ring"), ("NCCL_ALGO", "Tree"), ("KB_X", "one")]


def _write(root: Path, n: int, seed: int) -> None:
    """A seeded campaign of ``n`` attempts over two campaigns on two platforms."""
    rnd = random.Random(seed)
    for folder in ("attempts", "blockers", "campaigns", "decisions", "platforms", "stacks"):
        (root / folder).mkdir(parents=True, exist_ok=True)

    def put(folder: str, rid: str, text: str) -> None:
        (root / folder / f"{rid}.yaml").write_text(text, encoding="utf-8")

    put("platforms", "pa", 'title: PA\ngpu: G\ngpu_count: 8\ncompute_capability: "12.0"\ninterconnect: PCIe Gen5\n')
    put("platforms", "pb", 'title: PB\ngpu: H\ngpu_count: 8\ncompute_capability: "9.0"\ninterconnect: NVLink\n')
    stacks = []
    for i in range(6):
        sid = f"s{i}"
        base = f"base: s{i - 1}\n" if i else ""
        cuda = "12.8" if i < 3 else "13.0"
        put("stacks", sid, f'title: Stack {i}\n{base}components:\n  cuda: "{cuda}"\n  torch: "2.{7 + i % 3}.0"\n'
                           f'  flashinfer: "0.{3 + i}.1"\n')
        stacks.append(sid)
    for cid, plat in (("ca", "pa"), ("cb", "pb")):
        put("campaigns", cid, f"title: Campaign {cid}\nmodel: M\nplatform: {plat}\nstack: s0\nmetric:\n"
                              "  name: tput\n  unit: tok/s\n  direction: higher\nstarted: 2026-01-01\n")
    roots = {
        "r-cuda": 'applies_when:\n  compute_capability: ">=12.0"\nfixed_by:\n  - cuda: ">=13.0"\n',
        "r-fi": 'fixed_by:\n  - flashinfer: ">=0.6.0"\n  - kind: disables\n    requires: {torch: ">=2.9"}\n',
        "r-none": "workaround: leave it off\nflags: [--opt-a, NCCL_ALGO=Tree]\n",
        "r-torch": 'fixed_by:\n  - torch: ">=2.9"\n    cuda: ">=13.0"\nflags: ["--opt-b"]\n',
    }
    for rid, body in roots.items():
        put("blockers", rid, f"title: Root {rid}\n{body}signatures: [\"root sig {rid}\"]\n")
    children = []
    for i in range(12):
        bid = f"b{i:02d}"
        parents = rnd.sample(sorted(roots) + children[:4], 1 + (i % 3 == 0))
        sig = '"/kernel \\\\d+ of ' + bid + '/"' if i % 4 == 0 else f'"error of {bid}"'
        flags = "flags: [--opt-c]\n" if i % 5 == 0 else ""
        put("blockers", bid, f"title: Blocker {bid}\ncaused_by: [{', '.join(parents)}]\nsignatures: [{sig}]\n{flags}")
        children.append(bid)
    blockers = sorted(roots) + children
    ids: list[str] = []
    for i in range(n):
        day = 1 + (i * 27) // n
        aid = f"2026-02-{day:02d}-a{i:04d}"
        camp = "ca" if rnd.random() < 0.7 else "cb"
        stack = stacks[min(5, (i * 6) // n + rnd.choice((-1, 0, 0, 1)))] if i * 6 // n else "s0"
        flags = rnd.sample(FLAGS, rnd.randint(0, 3))
        env = dict(rnd.sample(ENV, rnd.randint(0, 1)))
        lines = [f"title: Attempt {i}", f"date: 2026-02-{day:02d}", f"campaign: {camp}", f"approach: Try {i}.",
                 f"platform: {'pa' if camp == 'ca' else 'pb'}", f"stack: {stack}", "config:",
                 f"  flags: [{', '.join(repr(f) for f in flags)}]",
                 "  env: {" + ", ".join(f"{k}: {v}" for k, v in env.items()) + "}"]
        if rnd.random() < 0.15:
            lines.append(f'components:\n  torch: "2.{rnd.choice((8, 9, 10))}.0"')
        if rnd.random() < 0.45:
            bs = rnd.sample(blockers, 1 + (rnd.random() < 0.3))
            err = " and ".join(f"kernel {i} of {b}" if b in children[::4] else f"error of {b}" for b in bs)
            lines += ["outcome: failed", f'error: "{err}"', f"blocked_by: [{', '.join(bs)}]"]
        else:
            lines += [f"outcome: {rnd.choice(('improved', 'improved', 'baseline', 'regressed'))}",
                      f"metrics:\n  tput: {round(80 + rnd.gauss(0, 10), 1)} tok/s"]
            if rnd.random() < 0.1:
                lines.append(f"blocked_by: [{rnd.choice(blockers)}]")
        if ids and rnd.random() < 0.35:
            lines.append(f"baseline: {rnd.choice(ids)}")
        if ids and rnd.random() < 0.1:
            lines.append(f"retry_of: {rnd.choice(ids)}")
        ids.append(aid)
        put("attempts", aid, "\n".join(lines) + "\n")
    for i in range(8):
        ev = rnd.sample(ids, 3)
        change = f"stack_change:\n  from: s{i % 3}\n  to: s{3 + i % 3}\n" if i % 2 == 0 else ""
        put("decisions", f"2026-02-{10 + i:02d}-d{i}",
            f"title: Decision {i}\nstatus: {'accepted' if i % 3 else 'proposed'}\ndate: 2026-02-{10 + i:02d}\n"
            f"campaign: {'ca' if i % 2 == 0 else 'cb'}\ncontext: Why {i}.\nconsidered_options:\n"
            f"  - title: A\n    evidence: [{ev[0]}, {ev[1]}]\n  - title: B\n    evidence: [{ev[2]}]\n"
            f"outcome:\n  chosen: A\nresolves: [{rnd.choice(blockers)}]\n{change}")


# --------------------------------------------------------------------------- references (pairwise)


def ref_is_retry(kg: KnowledgeGraph, later: Attempt, earlier: Attempt) -> bool:
    if later.id == earlier.id:
        return False
    if later.retry_of == earlier.id:
        return True
    if (later.campaign != earlier.campaign or (later.date, later.id) <= (earlier.date, earlier.id)
            or not earlier.blocked_by):
        return False
    flags = attempt_flags(earlier)
    if not (later.baseline == earlier.id or (flags and flags <= attempt_flags(later))):
        return False
    camp = kg.get(earlier.campaign)
    plat = platform_of(kg, camp if isinstance(camp, Campaign) else None)
    own = resolve_blockers(kg, kg.attempt_components(earlier), plat)
    there = resolve_blockers(kg, kg.attempt_components(later), plat)
    stood = [b for b in earlier.blocked_by if own[b].state in ("stands", "disabled")]
    return bool(stood) and all(there[b].state in ("resolved", "not_applicable") for b in stood)


def ref_pairs(kg: KnowledgeGraph) -> set[tuple[str, str]]:
    attempts = kg.of_kind(Attempt)
    return {(e.id, x.id) for e in attempts for x in attempts if ref_is_retry(kg, x, e)}


def ref_same_feature(kg: KnowledgeGraph, b: Blocker, a: Attempt, flags: frozenset[str]) -> str:
    names = flag_names(flags)
    env = {f for f in flags if "=" in f and not f.startswith("-")}
    own = [f for f in b.flags if (f in env) or ("=" not in f and flag_names([f]) & names)]
    if own:
        return f"it runs with {', '.join(own)}, the flag{'s' if len(own) > 1 else ''} that turn{'' if len(own) > 1 else 's'} that feature on"
    if b.flags:  # a blocker's own flags name its feature
        return ""
    for other in sorted((x for x in kg.of_kind(Attempt) if b.id in x.blocked_by), key=lambda x: x.id):
        if other.id == a.id:
            continue
        base = kg.get(other.baseline) if other.baseline else None
        dist = attempt_flags(other) - attempt_flags(base) if isinstance(base, Attempt) else attempt_flags(other)
        if dist and dist <= flags:
            return f"it blocked {other.id}, run with the same {', '.join(sorted(dist))}"
    return ""


def ref_success_pairs(kg: KnowledgeGraph) -> set[tuple[str, str, str]]:
    """(attempt, blocker, why) of every success-where-blocker-stands finding, pairwise."""
    out = set()
    for a in kg.of_kind(Attempt):
        comps = kg.attempt_components(a)
        if a.outcome.value not in ("improved", "baseline") or not comps:
            continue
        camp = kg.get(a.campaign)
        st = resolve_blockers(kg, comps, platform_of(kg, camp if isinstance(camp, Campaign) else None))
        for b in kg.of_kind(Blocker):
            if st[b.id].state in ("stands", "disabled") and b.id not in a.blocked_by:
                reason = ref_same_feature(kg, b, a, attempt_flags(a))
                if reason:
                    out.add((a.id, b.id, reason))
    return out


def ref_isolated(kg: KnowledgeGraph, before, names: set[str], changed: set[str], campaign: str | None) -> list[str]:
    return sorted(a.id for a in kg.of_kind(Attempt)
                  if (diff := {c["component"] for c in stack_diff(before, kg.attempt_components(a))})
                  and diff <= names and diff & changed and (campaign is None or a.campaign == campaign))


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    root = tmp_path_factory.mktemp("mixed") / "records"
    _write(root, 160, seed=7)
    loaded = load(root)
    assert loaded.problems == []
    return loaded.graph


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    root = tmp_path_factory.mktemp("gen") / "records"
    generate(root, 400, seed=13)
    loaded = load(root)
    assert loaded.problems == []
    return loaded.graph


# --------------------------------------------------------------------------- tests


def test_graph_adjacency_matches_networkx(mixed: KnowledgeGraph) -> None:
    g = mixed.g
    for node in sorted(g.nodes):
        for edge in ("blocked_by", "caused_by", "baseline", "evidence", "uses_stack"):
            assert mixed.into(node, edge) == sorted(u for u, _v, k in g.in_edges(node, keys=True) if k == edge)
            assert mixed.out(node, edge) == [v for _u, v, k in g.out_edges(node, keys=True) if k == edge]
    assert [a.id for a in mixed.of_kind(Attempt)] == sorted(r.id for r in mixed.records.records.values()
                                                             if isinstance(r, Attempt))
    assert len(mixed.attempts_of("ca")) + len(mixed.attempts_of("cb")) == 160
    mixed.of_kind(Attempt).clear()  # a caller changing the list it got changes nothing kept
    assert len(mixed.of_kind(Attempt)) == 160
    comps = mixed.stack_components("s5")
    comps.clear()
    assert mixed.stack_components("s5")["cuda"].version == "13.0"


@pytest.mark.parametrize("which, pairs", [("mixed", 62), ("generated", 14)])
def test_retries_match_pairwise_definition(which: str, pairs: int, request: pytest.FixtureRequest) -> None:
    kg = request.getfixturevalue(which)
    expected = ref_pairs(kg)
    got = {(e.id, x.id) for e in kg.of_kind(Attempt) for x in retries_of(kg, e)}
    assert got == expected
    assert len(expected) == pairs
    for a in kg.of_kind(Attempt):
        assert [x.id for x in retries_of(kg, a)] == [x.id for x in sorted(
            (x for x in kg.of_kind(Attempt) if (a.id, x.id) in expected), key=lambda x: (x.date, x.id))]
        assert [x.id for x in retried(kg, a)] == [x.id for x in sorted(
            (x for x in kg.of_kind(Attempt) if (x.id, a.id) in expected), key=lambda x: (x.date, x.id))]
    sample = kg.of_kind(Attempt)[::7]
    assert all(is_retry(kg, x, e) == ((e.id, x.id) in expected) for e in sample for x in sample)


def test_retries_of_an_attempt_from_elsewhere_is_scanned(mixed: KnowledgeGraph) -> None:
    """An attempt that is not the graph's own record (an import draft) gets the plain scan."""
    earlier = next(a for a in mixed.of_kind(Attempt) if retries_of(mixed, a))
    copy = earlier.model_copy()
    assert [x.id for x in retries_of(mixed, copy)] == [x.id for x in retries_of(mixed, earlier)]
    later = retries_of(mixed, earlier)[0]
    assert earlier.id in [x.id for x in retried(mixed, later.model_copy())]


def test_success_findings_match_pairwise_definition(mixed: KnowledgeGraph) -> None:
    expected = ref_success_pairs(mixed)
    got = {f for f in findings(mixed) if f.kind == "success-where-blocker-stands"}
    # one finding per attempt (issue 24): the first pair in words, how many others it stands for at its end
    by_attempt: dict[str, dict[str, str]] = {}
    for a, b, reason in expected:
        by_attempt.setdefault(a, {})[b] = reason
    assert len(got) == len(by_attempt)
    for f in got:
        pairs = by_attempt[f.record]
        assert f.about in pairs and f" blocker {f.about} " in f.message and pairs[f.about] in f.message, f.message
        more = len(pairs) - 1
        assert (f"; and {more} more like it: about " in f.message) if more else ("more like it" not in f.message)
    assert len(expected) == 260  # 336 before blockers that name flags stopped matching through the attempts they blocked
    assert any(r.startswith("it runs with") for _a, _b, r in expected)
    assert any(r.startswith("it blocked") for _a, _b, r in expected)


def test_findings_of_is_the_filter_of_findings(tmp_path: Path) -> None:
    """Asked record by record before anything else (as ``kb why`` does), then after every
    finding is known (as the site does), findings_of is the filter of findings."""
    root = tmp_path / "records"
    _write(root, 120, seed=11)
    (root / "attempts" / "2026-02-01-a0000.yaml").write_text(
        (root / "attempts" / "2026-02-01-a0000.yaml").read_text() + 'notes: "TODO: say what changed"\n')
    loaded = load(root)
    assert loaded.problems == []
    kg = loaded.graph
    first = {rid: findings_of(kg, rid) for rid in sorted(kg.records.records)}
    everything = findings(kg)
    kinds = {f.kind for f in everything}
    assert kinds <= {"placeholder", "success-cites-blocker", "success-where-blocker-stands", "blocked-where-fixed",
                     "success-error-matches-standing-blocker", "pending-supersession",
                     "not-accepted-resolves", "credit-unchanged", "resolves-still-standing"}
    assert {"placeholder", "success-where-blocker-stands", "not-accepted-resolves"} <= kinds
    for rid in sorted(kg.records.records):
        assert first[rid] == [f for f in everything if f.record == rid]
        assert findings_of(kg, rid) == first[rid]


def test_signature_matches_match_the_plain_scan(mixed: KnowledgeGraph) -> None:
    import re

    def plain(text: str) -> list[str]:
        def hit(s: str) -> bool:
            if len(s) > 2 and s.startswith("/") and s.endswith("/"):
                return re.search(s[1:-1], text) is not None
            return " ".join(s.split()) in " ".join(text.split())
        return sorted(b.id for b in mixed.of_kind(Blocker) if any(hit(s) for s in b.signatures))

    texts = [a.error for a in mixed.of_kind(Attempt) if a.error]
    texts += ["root  sig\nr-cuda and kernel 12 of b00", "nothing here", "error of b03 error of b07"]
    matched = 0
    for t in texts:
        assert match_signatures(mixed, t) == plain(t)
        matched += bool(plain(t))
    assert (matched, len(texts)) == (68, 80)
    assert match_signatures(mixed, "root  sig\nr-cuda and kernel 12 of b00") == ["b00", "r-cuda"]


def test_credit_isolation_and_reruns_match_the_plain_scan(mixed: KnowledgeGraph) -> None:
    checked = 0
    pairs = ref_pairs(mixed)
    for a in mixed.of_kind(Attempt):
        c = attempt_credit(mixed, a)
        if c is None or not c.credited:
            continue
        ref = next((r for r in retried(mixed, a) if r.id == a.retry_of), None) or (retried(mixed, a) or [None])[-1]
        if ref is None:
            ref = mixed.get(a.baseline)
        before, after = mixed.attempt_components(ref), mixed.attempt_components(a)
        names = {n for x in c.credited for n in x["components"]}
        changed = {x["component"] for x in stack_diff(before, after)}
        camp = a.campaign if isinstance(mixed.get(a.campaign), Campaign) else None
        assert c.isolated_by == ref_isolated(mixed, before, names, changed, camp)
        for bid, reruns in c.retested.items():
            plat = platform_of(mixed, mixed.get(camp) if camp else None)
            want = sorted({x for (e, x) in pairs if bid in mixed.get(e).blocked_by
                           and resolve_blockers(mixed, mixed.attempt_components(mixed.get(x)), plat)[bid].state != "stands"})
            assert reruns == want
        checked += 1
    assert checked == 34


def test_queries_agree_on_a_fresh_graph(tmp_path: Path) -> None:
    """What a page asks after many other pages equals what a fresh graph answers first."""
    root = tmp_path / "records"
    _write(root, 90, seed=3)
    warm = load(root).graph
    for a in warm.of_kind(Attempt):
        why(warm, a.id)
    upgrade_paths(warm)
    for a in warm.of_kind(Attempt)[::9]:
        fresh = load(root).graph
        assert why(fresh, a.id).to_dict() == why(warm, a.id).to_dict()
    for d in warm.of_kind(Decision):
        fresh = load(root).graph
        x, y = decision_credit(fresh, fresh.get(d.id)), decision_credit(warm, d)
        assert (x.to_dict() if x else None) == (y.to_dict() if y else None)
    fresh = load(root).graph
    assert [p.to_dict() for p in upgrade_paths(fresh)] == [p.to_dict() for p in upgrade_paths(warm)]
    assert unblocks(fresh, {"cuda": "13.0"}, from_stack="s0", campaign="ca").to_dict() == \
        unblocks(warm, {"cuda": "13.0"}, from_stack="s0", campaign="ca").to_dict()


def test_compare_pairs_closest_runs_match_the_plain_scan(mixed: KnowledgeGraph) -> None:
    from kb.queries.compare import _similarity, attempt_facts, compare_pairs

    expected = []
    for camp in mixed.of_kind(Campaign):
        attempts = mixed.attempts_of(camp.id)
        facts = {x.id: attempt_facts(mixed, x) for x in attempts}
        for i, b in enumerate(attempts):
            earlier = attempts[max(0, i - 100):i]
            if earlier:
                best = max(reversed(earlier), key=lambda x: _similarity(facts[x.id], facts[b.id]))
                if _similarity(facts[best.id], facts[b.id]) > 0:
                    expected.append((best.id, b.id))
    closest = [(p.a, p.b) for p in compare_pairs(mixed) if p.why == "closest earlier run"]
    assert set(closest) <= set(expected)
    assert len(closest) == 157
    pairs = compare_pairs(mixed)
    seen = {frozenset((p.a, p.b)) for p in pairs if p.why != "closest earlier run"}
    assert {x for x in expected if frozenset(x) not in seen} == set(closest)


def test_reverse_links_match_the_plain_filters(mixed: KnowledgeGraph) -> None:
    from kb.queries import citing_decisions, resolving_decisions

    decisions = mixed.of_kind(Decision)
    cited = 0
    for a in mixed.of_kind(Attempt):
        got = citing_decisions(mixed, a.id)
        assert got == [d for d in decisions if a.id in d.evidence]
        cited += bool(got)
    assert cited == 22
    resolved = 0
    for b in mixed.of_kind(Blocker):
        got = resolving_decisions(mixed, b.id)
        assert got == [d for d in decisions if b.id in d.resolves]
        resolved += bool(got)
    assert resolved == 7
    assert citing_decisions(mixed, "no-such-attempt") == []


def test_upgrade_paths_of_some_stacks_are_those_of_all(mixed: KnowledgeGraph) -> None:
    every = upgrade_paths(mixed)
    assert [p.stack for p in every] == ["s0", "s1", "s2", "s3", "s4", "s5"]
    assert sum(len(p.rows) for p in every) == 10
    some = upgrade_paths(mixed, stacks=["s4", "s1", "no-such-stack"])
    assert [p.to_dict() for p in some] == [p.to_dict() for p in every if p.stack in ("s1", "s4")]
    some[0].rows.clear()  # a caller's copy: the kept paths do not change
    assert upgrade_paths(mixed, stacks=["s1"])[0].to_dict() == every[1].to_dict()


@pytest.mark.parametrize("lazy", [0, 10_000])
def test_retries_one_at_a_time_or_all_at_once_agree(lazy: int, monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    """``kb why`` asks about one attempt (answered from its candidates alone); the site asks
    about all (the whole relation): both give the pairwise definition."""
    import kb.queries.index as ix

    monkeypatch.setattr(ix, "LAZY_QUESTIONS", lazy)
    root = tmp_path / "records"
    _write(root, 120, seed=5)
    kg = load(root).graph
    expected = ref_pairs(kg)
    assert len(expected) == 21
    attempts = kg.of_kind(Attempt)
    for a in attempts:
        assert [x.id for x in retried(kg, a)] == [x.id for x in sorted(
            (x for x in attempts if (x.id, a.id) in expected), key=lambda x: (x.date, x.id))]
        assert {(a.id, x.id) for x in retries_of(kg, a)} == {p for p in expected if p[0] == a.id}
    assert ("retries" in ix.index(kg).__dict__) is (lazy == 0)


def test_possible_duplicates_match_the_plain_scan(mixed: KnowledgeGraph) -> None:
    import difflib

    from kb.errortext import error_headline
    from kb.queries import possible_duplicates

    def plain(draft: Attempt) -> list[tuple[str, str]]:
        out = []
        for other in mixed.of_kind(Attempt):
            if other.id == draft.id or other.campaign != draft.campaign or other.date != draft.date:
                continue
            mine, theirs = draft.metrics.get("tput"), other.metrics.get("tput")
            if mine is not None and theirs is not None and mine.value == theirs.value:
                out.append((other.id, f"same date and tput {theirs.display()}"))
            elif error_headline(draft.error or "") and error_headline(draft.error or "") == error_headline(other.error or ""):
                out.append((other.id, f"same date and error ({error_headline(draft.error or '')[:60]})"))
            elif other.outcome == draft.outcome and difflib.SequenceMatcher(
                    None, draft.title.lower(), other.title.lower()).ratio() >= 0.6:
                out.append((other.id, "same date, outcome and a similar title"))
        return sorted(out)

    found = 0
    for a in mixed.of_kind(Attempt)[::3]:
        draft = a.model_copy(update={"id": a.id + "-draft"})
        assert possible_duplicates(mixed, draft) == plain(draft)
        found += len(plain(draft))
    assert found == 121


# --------------------------------------------------------------------------- plain forms of the fast paths


def ref_attempt_flags(a: Attempt) -> frozenset[str]:
    """The flags of an attempt, token by token (the loop :func:`attempt_flags` replaced)."""
    items: list[str] = []
    for token in " ".join(a.config.flags).split():
        if token.startswith("-") or not items or re.match(r"[A-Z_][A-Z0-9_]*=", token):  # a flag, or an env setting
            items.append(token)
        else:
            items[-1] += f" {token}"
    items.extend(f"{k}={v}" for k, v in a.config.env.items())
    return frozenset(items)


def test_attempt_flags_match_the_token_loop(mixed: KnowledgeGraph, generated: KnowledgeGraph) -> None:
    rnd = random.Random(5)
    words = ["--tp", "8", "-x", "value", "--opt-a", "two words", "  ", "\t--b\t3 ", "-", "a-b", "--k=v", "",
             "NCCL_ALGO=Tree", "level=3", "A_B2=x y", "_X="]
    odd = [Attempt(id=f"x{i}", title="t", date="2026-01-01", campaign="ca", approach="a", outcome="baseline",
                   config={"flags": rnd.sample(words, rnd.randint(0, 6)),
                           "env": dict(rnd.sample([("A", "1"), ("B", "x y"), ("NCCL_ALGO", "Tree")], rnd.randint(0, 2)))})
           for i in range(300)]
    attempts = odd + mixed.of_kind(Attempt) + generated.of_kind(Attempt)
    assert all(attempt_flags(a) == ref_attempt_flags(a) for a in attempts)
    assert attempt_flags(Attempt(id="y", title="t", date="2026-01-01", campaign="ca", approach="a", outcome="baseline",
                                 config={"flags": ["8", "9", "--tp", "4  2"]})) == \
        {"8 9", "--tp 4 2"}


def test_fix_json_is_model_dump() -> None:
    from kb.models import Fix
    from kb.queries.fixes import fix_json

    fixes = [Fix(requires={"cuda": ">=13.0", "torch": ">=2.9"}),
             Fix(kind="enables", requires={"cuda": ">=13.0"}, release="13.0", pr="o/r#1"),
             Fix(kind="enables", requires={"cuda": ">=13.0"}, reverted=True),
             Fix(kind="disables", requires={"torch": ">=2.9"}, note="off"),
             Fix(kind="workaround", flag="--opt-a", advice="leave it"),
             Fix(kind="build_option", flag="TORCH_CUDA_ARCH_LIST=12.0"),
             Fix(kind="hardware_gap", advice="switch backend"),
             Fix(kind="enables", pr="o/r#2")]
    for f in fixes:
        assert fix_json(f) == f.model_dump(mode="json")
    assert fix_json(fixes[0]) == {"cuda": ">=13.0", "torch": ">=2.9"}
    assert fix_json(fixes[4])["kind"] == "workaround"
    assert set(fix_json(fixes[1])) == set(Fix.model_fields)  # a field added to Fix must be added there too


def test_lazy_statuses_read_as_the_full_dict(mixed: KnowledgeGraph) -> None:
    from kb.queries.resolution import LazyStatuses

    rnd = random.Random(3)
    blockers = [b.id for b in mixed.of_kind(Blocker)]
    for stack in ("s0", "s2", "s5"):
        for camp in ("ca", "cb"):
            c = mixed.get(camp)
            comps = mixed.stack_components(stack)
            full = resolve_blockers(mixed, comps, platform_of(mixed, c if isinstance(c, Campaign) else None))
            lazy = LazyStatuses(mixed, comps, platform_of(mixed, c if isinstance(c, Campaign) else None))
            order = blockers[:]
            rnd.shuffle(order)
            for bid in order[: len(order) // 2]:
                assert lazy[bid] == full[bid]
            assert "nothing-such" not in lazy and "ca" not in lazy and all(b in lazy for b in blockers)
            with pytest.raises(KeyError):
                lazy["ca"]
            assert dict(lazy) == full and len(lazy) == len(full) == 16
    states = {st.state for st in full.values()}
    assert {"stands", "resolved"} <= states


def test_roots_match_the_plain_count(mixed: KnowledgeGraph, generated: KnowledgeGraph) -> None:
    from kb.queries import roots
    from kb.queries.resolution import current_stack

    for kg in (mixed, generated):
        for campaign in (None, kg.of_kind(Campaign)[0].id):
            got = {r.id: r for r in roots(kg, campaign)}
            camps = [c for c in kg.of_kind(Campaign) if campaign is None or c.id == campaign]
            now = {c.id: resolve_blockers(kg, kg.stack_components(current_stack(kg, c) or ""), platform_of(kg, c))
                   for c in camps}
            for b in kg.of_kind(Blocker):
                if not b.is_root:
                    continue
                hit = [a for a in kg.of_kind(Attempt) if (campaign is None or a.campaign == campaign)
                       and b.id in kg.causes_closure(a.blocked_by)]
                r = got.pop(b.id)
                assert r.attempts == sorted(a.id for a in hit if a.status != "draft")
                assert r.drafts == sorted(a.id for a in hit if a.status == "draft")
                assert r.current == sorted(a.id for a in hit if a.status != "draft"  # a success is never blocked now
                                           and a.outcome.value not in ("improved", "baseline")
                                           and now[a.campaign][b.id].state in ("stands", "disabled"))
                assert r.blockers == sorted(x.id for x in kg.of_kind(Blocker) if x.id != b.id
                                            and b.id in kg.causes_closure([x.id]))
            assert got == {}
    assert sum(len(r.current) for r in roots(generated)) > 0
    for n in (1, 3, 100):
        assert roots(generated, limit=n) == roots(generated)[:n]


def test_a_record_mentions_a_word_when_its_json_holds_it(mixed: KnowledgeGraph) -> None:
    from kb.queries.findings import _mentions

    records = list(mixed.records.records.values())
    a = mixed.of_kind(Attempt)[0]
    b = mixed.of_kind(Blocker)[0]
    records += [a.model_copy(update={"config": a.config.model_copy(update={"env": {"K": "x TODO y"}})}),
                a.model_copy(update={"metrics": {"TODO_rate": a.metrics[next(iter(a.metrics))]}} if a.metrics else {}),
                b.model_copy(update={"fixed_by": [b.fixed_by[0].model_copy(update={"note": "TODO"})]} if b.fixed_by else {}),
                b.model_copy(update={"signatures": ["no", "later TODO"]})]
    for word in ("TODO", "Tree", "KB_X", "Root"):
        for rec in records:
            assert _mentions(rec, word) == (word in rec.model_dump_json(by_alias=True, exclude_none=True)), (rec.id, word)
    assert sum(_mentions(r, "TODO") for r in records) >= 3
