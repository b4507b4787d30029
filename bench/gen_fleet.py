"""Seeded synthetic records of many engineers' campaigns: ``python bench/gen_fleet.py DEST N [SEED]``.

The second generator of the scale benchmark (kb issue 23), with the properties that
:mod:`gen_campaign` lacks: 40 campaigns on 8 different platforms (compute capabilities 8.0 to
12.1, PCIe and NVLink), each on its own chain of 5 stacks; blockers in cause chains of random
depth, living in one of a few components, each turned on by one flag of a shared pool of 30;
outcomes drawn at random (40 % failed), so many successes run with the flags of attempts blocked
on the same stack; decisions citing attempts and resolving blockers. Everything comes from
``random.Random(seed)``: the same ``(n, seed)`` writes the same bytes.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_campaign import record_writer  # noqa: E402

PLATFORMS = [("A100 SXM4 80GB", "8.0", "sm_80", "NVLink"), ("L40S", "8.9", "sm_89", "PCIe Gen4"),
             ("H100 SXM5", "9.0", "sm_90", "NVLink"), ("H200 SXM", "9.0", "sm_90", "NVLink"),
             ("B200", "10.0", "sm_100", "NVLink"), ("RTX PRO 6000 Blackwell", "12.0", "sm_120", "PCIe Gen5"),
             ("GeForce RTX 5090", "12.0", "sm_120", "PCIe Gen5"), ("GB10", "12.1", "sm_121", "NVLink-C2C")]
CUDA = ["12.4", "12.6", "12.8", "12.9", "13.0"]
COMPONENTS = ["torch", "flashinfer", "nccl", "sglang", "vllm", "triton"]
FLAGS = [f"--enable-feature-{i}" for i in range(30)]


def generate_fleet(dest: str | Path, n: int, seed: int = 1, campaigns: int = 40) -> dict[str, int]:
    """Write a records tree of ``n`` attempts in ``campaigns`` campaigns under ``dest`` (created;
    must not hold records). Returns the count written per kind."""
    rnd = random.Random(seed)
    write = record_writer(dest)

    for i, (gpu, cc, arch, link) in enumerate(PLATFORMS):
        write("platforms", f"fleet-platform-{i}", f"title: 8x {gpu}\ngpu: {gpu}\ngpu_count: 8\n"
              f"compute_capability: \"{cc}\"\narch: {arch}\ninterconnect: {link}\n")
    stacks: dict[str, list[str]] = {}
    for c in range(campaigns):
        cid = f"fleet-campaign-{c:03d}"
        chain = []
        for s, cuda in enumerate(CUDA):
            sid = f"fleet-stack-{c:03d}-{s}"
            comps = "".join(f"  {name}: \"{rnd.randint(1, 9)}.{rnd.randint(0, 9)}.{s}\"\n" for name in COMPONENTS)
            base = f"base: {chain[-1]}\n" if chain else ""
            write("stacks", sid, f"title: Stack {s} of campaign {c} (CUDA {cuda})\n{base}components:\n"
                  f"  cuda: \"{cuda}\"\n{comps}")
            chain.append(sid)
        stacks[cid] = chain
        write("campaigns", cid, f"title: Campaign {c}\nmodel: Model {c % 11} FP8\nplatform: fleet-platform-{c % len(PLATFORMS)}\n"
              f"stack: {chain[-1]}\nmetric:\n  name: output_throughput\n  unit: tok/s\n  direction: higher\n"
              f"baseline: 100 tok/s\ntarget: 150 tok/s\nstarted: 2026-01-01\n")
    camps = list(stacks)
    n_blockers = max(8, n // 20)
    blockers: list[str] = []
    for i in range(n_blockers):
        bid = f"fleet-blocker-{i:05d}"
        lines = [f"title: Fleet blocker {i} in {COMPONENTS[i % len(COMPONENTS)]}",
                 f"description: Feature path {i % 30} fails with fleet error {i}.",
                 f"component: {COMPONENTS[i % len(COMPONENTS)]}", f"flags: [\"{FLAGS[i % 30]}\"]",
                 f"signatures: [\"fleet error {i:05d}\"]"]
        if blockers and rnd.random() < 0.7:  # chains of random depth
            lines.append(f"caused_by: [{rnd.choice(blockers[-50:])}]")
        elif rnd.random() < 0.5:
            lines.append(f"fixed_by:\n  - cuda: \">={rnd.choice(CUDA[2:])}\"")
        if rnd.random() < 0.3:
            lines.append(f"applies_when:\n  compute_capability: \">={rnd.choice(['9.0', '10.0', '12.0'])}\"")
        lines.append(f"status: {rnd.choice(['open', 'open', 'fixed'])}")
        write("blockers", bid, "\n".join(lines) + "\n")
        blockers.append(bid)
    base_date = dt.date(2026, 1, 1)
    attempt_ids = []
    for i in range(n):
        d = base_date + dt.timedelta(days=(i * 300) // max(n, 1))
        aid = f"{d.isoformat()}-fleet-attempt-{i:06d}"
        attempt_ids.append(aid)
        camp = rnd.choice(camps)
        c = int(camp.rsplit("-", 1)[1])
        flags = rnd.sample(FLAGS, rnd.randint(1, 3))
        lines = [f"title: Attempt {i} with {' '.join(flags)}", f"date: {d.isoformat()}", f"campaign: {camp}",
                 f"approach: Turn on {', '.join(flags)} and measure.", f"platform: fleet-platform-{c % len(PLATFORMS)}",
                 f"stack: {rnd.choice(stacks[camp])}", "config:",
                 f"  flags: [{', '.join(repr(f) for f in flags)}, \"--tp 8\"]"]
        if rnd.random() < 0.4:
            b = rnd.randrange(n_blockers)
            lines += ["outcome: failed", f"error: \"RuntimeError: fleet error {b:05d} in feature path {b % 30}\"",
                      f"blocked_by: [{blockers[b]}]"]
        else:
            value = round(100 + rnd.gauss(0, 15), 1)
            lines += [f"outcome: {'improved' if value > 100 else 'regressed'}",
                      f"metrics:\n  output_throughput: {value} tok/s"]
        write("attempts", aid, "\n".join(lines) + "\n")
    n_dec = max(2, n // 40)
    for i in range(n_dec):
        d = base_date + dt.timedelta(days=(i * 300) // n_dec)
        ev = rnd.sample(attempt_ids, min(2, len(attempt_ids)))
        lines = [f"title: Fleet decision {i}", f"status: {rnd.choice(['accepted', 'proposed', 'rejected'])}",
                 f"date: {d.isoformat()}", f"campaign: {rnd.choice(camps)}", f"context: Decision {i}.",
                 "considered_options:", f"  - title: Option A {i}", f"    evidence: [{', '.join(ev)}]",
                 f"  - title: Option B {i}", "outcome:", f"  chosen: Option A {i}"]
        if i % 2 == 0:
            lines.append(f"resolves: [{rnd.choice(blockers)}]")
        write("decisions", f"{d.isoformat()}-fleet-decision-{i:05d}", "\n".join(lines) + "\n")
    return {"attempts": n, "blockers": n_blockers, "decisions": n_dec, "stacks": campaigns * len(CUDA),
            "campaigns": campaigns, "platforms": len(PLATFORMS)}


if __name__ == "__main__":
    print(generate_fleet(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1))
