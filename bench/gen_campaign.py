"""Seeded synthetic campaigns for the scale benchmark: ``python bench/gen_campaign.py DEST N``.

Proportions follow the real campaign in ``records/`` and the issue that asked for it (kb issue 13):
attempt files of about 0.7 KB (approach, hypothesis, flags, env, metric or error, tags, notes);
about 40 % of attempts failed, each blocked by one or two blockers; one blocker per 20 attempts,
arranged in cause chains four levels deep under a dozen root causes (so ``why`` walks several
levels and ``roots`` aggregates thousands of attempts); one decision per 20 attempts citing
attempts as evidence, resolving blockers, some superseding older ones; one stack per 200 attempts,
each based on the one before (base chains); one campaign per 2,000 attempts. Everything comes from
``random.Random(seed)``: the same ``(n, seed)`` writes the same bytes.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path
from typing import Callable

APPROACHES = ["flag sweep", "kernel swap", "allreduce backend", "speculative decoding", "CUDA graph capture",
              "expert parallelism", "quantised KV cache", "chunked prefill", "scheduler policy", "NCCL tuning"]
ERRORS = ["RuntimeError: CUDA error: no kernel image is available for execution on the device",
          "KeyError: {k}", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {k} MiB",
          "ncclInternalError: NCCL error {k} while capturing", "AssertionError: unsupported arch sm_120 ({k})",
          "ImportError: libcudart.so.12: cannot open shared object file ({k})"]
COMPONENTS = [("torch", "2.{m}.0"), ("flashinfer", "0.{m}.1"), ("sglang", "0.5.{m}"), ("nccl", "2.2{m}.3")]


def record_writer(dest: str | Path) -> Callable[[str, str, str], None]:
    """Make the kind folders of a records tree under ``dest``; the function writing one record,
    ``write(folder, id, yaml_text)`` (also used by :mod:`gen_fleet`)."""
    root = Path(dest)
    for folder in ("attempts", "blockers", "campaigns", "decisions", "platforms", "stacks"):
        (root / folder).mkdir(parents=True, exist_ok=True)

    def write(folder: str, rid: str, text: str) -> None:
        (root / folder / f"{rid}.yaml").write_text(text, encoding="utf-8")

    return write


def generate(dest: str | Path, n: int, seed: int = 1) -> dict[str, int]:
    """Write a records tree of ``n`` attempts under ``dest`` (created; must not hold records).

    Returns the count written per kind, e.g. ``{"attempts": 1000, "blockers": 50, ...}``.
    """
    rnd = random.Random(seed)
    write = record_writer(dest)
    write("platforms", "gen-platform", "title: 8x RTX PRO 6000 Blackwell\ngpu: RTX PRO 6000 Blackwell\n"
          "gpu_count: 8\ncompute_capability: \"12.0\"\narch: sm_120\ninterconnect: PCIe Gen5\n")
    n_stacks = max(2, n // 200)
    stacks = [f"gen-stack-{i:04d}" for i in range(n_stacks)]
    for i, sid in enumerate(stacks):
        cuda = "12.8" if i < n_stacks // 2 else "13.0"
        comps = "".join(f"  {name}: \"{v.format(m=(i + j) % 9 + 1)}\"\n" for j, (name, v) in enumerate(COMPONENTS))
        base = f"base: {stacks[i - 1]}\n" if i else ""
        write("stacks", sid, f"title: Generated stack {i} (CUDA {cuda})\n{base}components:\n  cuda: \"{cuda}\"\n{comps}")
    n_camps = max(1, n // 2000)
    camps = [f"gen-campaign-{i:03d}" for i in range(n_camps)]
    for i, cid in enumerate(camps):
        write("campaigns", cid, f"title: Generated campaign {i}\nmodel: Model {i} INT4\nplatform: gen-platform\n"
              f"stack: {stacks[0]}\nmetric:\n  name: output_throughput\n  unit: tok/s\n  direction: higher\n"
              f"baseline: 80 tok/s\ntarget: 120 tok/s\nstarted: 2026-01-01\n")
    # blockers: roots, then levels 1..3, each caused by one or two of the level above
    n_blockers = max(8, n // 20)
    n_roots = max(2, min(12, n_blockers // 8))
    levels: list[list[str]] = [[f"gen-root-{i:03d}" for i in range(n_roots)]]
    rest = n_blockers - n_roots
    for depth in (1, 2, 3):
        count = rest // 3 if depth < 3 else rest - 2 * (rest // 3)
        levels.append([f"gen-blocker-l{depth}-{i:05d}" for i in range(count)])
    blockers = [b for lv in levels for b in lv]
    for depth, lv in enumerate(levels):
        for i, bid in enumerate(lv):
            k = blockers.index(bid) if depth == 0 else i
            lines = [f"title: Generated {'root cause' if depth == 0 else 'blocker'} {bid[4:]} in kernel path {k % 37}",
                     f"description: Kernel path {k % 37} fails on SM120 with JIT error {k}; seen under load."]
            if depth:
                parents = rnd.sample(levels[depth - 1], min(len(levels[depth - 1]), 1 + (i % 4 == 0)))
                lines.append(f"caused_by: [{', '.join(parents)}]")
            else:
                lines.append(f"fixed_by:\n  - cuda: \">=13.{i % 3}\"\n    flashinfer: \">=0.{i % 9 + 1}.0\"")
                lines.append(f"workaround: Disable kernel path {i} with --disable-path-{i}.")
            lines.append(f"signatures: [\"JIT error {bid[4:]} \"]")
            lines.append(f"status: {'open' if i % 3 else 'fixed'}")
            lines.append(f"upstream: [example/kernels#{1000 + k}]")
            write("blockers", bid, "\n".join(lines) + "\n")
    base_date = dt.date(2026, 1, 1)
    attempt_ids = []
    for i in range(n):
        d = base_date + dt.timedelta(days=(i * 300) // max(n, 1))
        aid = f"{d.isoformat()}-gen-attempt-{i:06d}"
        attempt_ids.append(aid)
        camp = camps[i % n_camps]
        stack = stacks[min(n_stacks - 1, (i * n_stacks) // max(n, 1))]
        approach = APPROACHES[i % len(APPROACHES)]
        failed = rnd.random() < 0.4
        lines = [f"title: {approach.capitalize()} {i} on path {i % 37}", f"date: {d.isoformat()}",
                 f"campaign: {camp}", f"approach: Try {approach} variant {i} with value {rnd.randint(1, 512)} on kernel "
                 f"path {i % 37}.", f"hypothesis: Variant {i} cuts the verify cost of the decode step by about "
                 f"{rnd.randint(1, 30)} %.", "platform: gen-platform", f"stack: {stack}",
                 "config:", f"  flags: [\"--tp 8\", \"--opt-{i % 13} {rnd.randint(1, 64)}\", \"--cuda-graph-max-bs 128\"]",
                 f"  env: {{NCCL_ALGO: Ring, KB_VARIANT: \"{i % 7}\"}}"]
        if failed:
            lines.append("outcome: failed")
            b = rnd.choice(blockers[n_roots:] or blockers)
            msg = rnd.choice(ERRORS).format(k=i % 97)
            lines.append(f"error: \"{msg} (JIT error {b[4:]} during capture)\"")
            lines.append(f"blocked_by: [{b}]")
        else:
            value = round(80 + rnd.gauss(0, 12), 1)
            lines.append(f"outcome: {'improved' if value > 80 else 'regressed'}")
            lines.append(f"metrics:\n  output_throughput: {value} tok/s\n  ttft_ms: {rnd.randint(50, 400)} ms")
        if i and rnd.random() < 0.3:
            lines.append(f"baseline: {attempt_ids[rnd.randrange(i)]}")
        lines.append(f"tags: [{approach.replace(' ', '-')}, t{i % 50}]")
        lines.append(f"notes: Run {i} of the sweep; see the logs of day {d.isoformat()} for the full output.")
        write("attempts", aid, "\n".join(lines) + "\n")
    n_dec = max(2, n // 20)
    decision_ids = []
    statuses = ["accepted", "rejected", "proposed", "deprecated"]
    for i in range(n_dec):
        d = base_date + dt.timedelta(days=(i * 300) // n_dec)
        did = f"{d.isoformat()}-gen-decision-{i:05d}"
        supersedes = decision_ids[-1] if i % 10 == 9 else None
        # a superseder is accepted (only an accepted decision retires another, kb.graph.RETIRING)
        status = ("superseded" if (i + 1) % 10 == 9 and i + 1 < n_dec
                  else "accepted" if supersedes else statuses[i % 4])
        decision_ids.append(did)
        ev = rnd.sample(attempt_ids, min(3, len(attempt_ids)))
        lines = [f"title: Generated decision {i} on kernel path {i % 37}", f"status: {status}",
                 f"date: {d.isoformat()}", f"campaign: {camps[i % n_camps]}",
                 f"context: Decision {i} weighs two ways around kernel path {i % 37}.",
                 "considered_options:", f"  - title: Option A {i}", f"    evidence: [{ev[0]}, {ev[1]}]",
                 f"  - title: Option B {i}", f"    evidence: [{ev[2]}]", "outcome:", f"  chosen: Option A {i}"]
        if i % 3 == 0:
            lines.append(f"resolves: [{rnd.choice(blockers)}]")
        if supersedes:
            lines.append(f"supersedes: [{supersedes}]")
        write("decisions", did, "\n".join(lines) + "\n")
    return {"attempts": n, "blockers": len(blockers), "decisions": n_dec, "stacks": n_stacks,
            "campaigns": n_camps, "platforms": 1}


if __name__ == "__main__":
    print(generate(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1))
