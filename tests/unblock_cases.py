"""The Cases of issue 3 as a records tree (``write_tree(CASES)``), shared by the query, CLI and
``kb new`` tests. Facts from the issue: the FlashInfer allreduce-fusion JIT gate widened to SM12x in
flashinfer 0.6.17, and from 0.6.7 on flashinfer's JIT on SM12x needs nvcc 12.9 or newer; torch's
symmetric-memory size table has no entry for capability 12 and no version fixes it; torch wheels
before 2.7.0 (and CUDA before 12.8) carry no sm_120 kernels."""

from __future__ import annotations

from typing import Any

GATE = "flashinfer-allreduce-fusion-jit-gate"
SYMM = "torch-symm-mem-no-capability-12"
WHEEL = "torch-wheel-no-sm120"
VERIFY = "eagle3-verify-latency"
TWO = "fast-allreduce-unavailable"

CASES: dict[str, Any] = {
    "platforms/rtx-pro-6000-x8.yaml": {
        "title": "8× RTX PRO 6000 Blackwell over PCIe", "gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": 8,
        "compute_capability": "12.0", "arch": "sm_120", "interconnect": "PCIe Gen5", "nvlink": False,
    },
    "campaigns/blackwell.yaml": {
        "title": "EAGLE-3 on Blackwell", "model": "Kimi-K2.5 INT4", "platform": "rtx-pro-6000-x8",
        "metric": {"name": "output_throughput", "unit": "tok/s"}, "baseline": "89.5 tok/s",
    },
    "stacks/cu128.yaml": {
        "title": "CUDA 12.8.1, flashinfer 0.6.4",
        "components": {"cuda": "12.8.1", "flashinfer": "0.6.4", "torch": "2.10.0+cu128"},
    },
    "stacks/cu130.yaml": {
        "title": "CUDA 13.0, flashinfer 0.6.17, torch nightly", "base": "cu128",
        "components": {"cuda": "13.0", "flashinfer": "0.6.17", "torch": "2.11.0.dev20260220+cu130"},
    },
    "stacks/cu126.yaml": {"title": "torch 2.6.0, CUDA 12.6", "components": {"cuda": "12.6", "torch": "2.6.0"}},
    f"blockers/{GATE}.yaml": {
        "title": "FlashInfer allreduce-fusion JIT gate lists only majors 9 and 10",
        "fixed_by": [{"flashinfer": ">=0.6.17", "cuda": ">=12.9"}],
        "signatures": ["No supported CUDA architectures found for major versions [9, 10]"],
    },
    f"blockers/{SYMM}.yaml": {
        "title": "torch symmetric-memory size table keyed by compute capability 9 and 10",
        "signatures": ["KeyError: 12"],
        "workaround": "Leave --enable-torch-symm-mem off.",
    },
    f"blockers/{WHEEL}.yaml": {
        "title": "torch wheel carries no sm_120 kernels",
        "fixed_by": [{"torch": ">=2.7.0", "cuda": ">=12.8"}],
        "signatures": ["no kernel image is available for execution on the device"],
    },
    f"blockers/{VERIFY}.yaml": {"title": "EAGLE-3 verify pass waits on slow allreduces", "caused_by": [GATE]},
    f"blockers/{TWO}.yaml": {"title": "No fast small-message allreduce", "caused_by": [GATE, SYMM]},
    "blockers/nvlink-only-bug.yaml": {"title": "A bug of NVLink machines", "applies_when": {"interconnect": "NVLink"}},
    "blockers/hopper-only-bug.yaml": {"title": "A bug of Hopper", "applies_when": {"compute_capability": "<10"}},
    "blockers/old-cuda-only-bug.yaml": {"title": "A bug of CUDA 11", "applies_when": {"cuda": "<12.0"}},
    "blockers/cuda12-only-bug.yaml": {"title": "A bug that CUDA 13 drops", "applies_when": {"cuda": "<13"}},
    "blockers/fixed-already.yaml": {"title": "Fixed since CUDA 12.0", "fixed_by": [{"cuda": ">=12.0"}]},
    "blockers/needs-cuda-13.yaml": {"title": "Needs CUDA 13", "fixed_by": [{"cuda": ">=13"}]},
    "blockers/needs-torch-2.11.yaml": {"title": "Needs torch 2.11", "fixed_by": [{"torch": ">=2.11"}]},
    "blockers/needs-torch-2.11-nightly.yaml": {"title": "Needs a torch 2.11 nightly", "fixed_by": [{"torch": ">=2.11.0.dev0"}]},
    "attempts/2026-02-19-baseline.yaml": {
        "title": "Baseline", "date": "2026-02-19", "campaign": "blackwell", "approach": "tp 8",
        "stack": "cu128", "outcome": "baseline", "metrics": {"output_throughput": "89.5 tok/s"},
    },
    "attempts/2026-02-21-eagle3.yaml": {
        "title": "EAGLE-3", "date": "2026-02-21", "campaign": "blackwell", "approach": "speculative decoding",
        "stack": "cu128", "outcome": "regressed", "metrics": {"output_throughput": "54.1 tok/s", "verify_time": "30 ms"},
        "blocked_by": [VERIFY],
    },
    "attempts/2026-02-23-fusion.yaml": {
        "title": "FlashInfer allreduce fusion", "date": "2026-02-23", "campaign": "blackwell", "approach": "fuse",
        "stack": "cu128", "outcome": "failed",
        "error": "RuntimeError: No supported CUDA architectures found for major versions [9, 10]",
        "blocked_by": [GATE],
    },
    "attempts/2026-02-23-symm-mem.yaml": {
        "title": "Torch symmetric memory", "date": "2026-02-23", "campaign": "blackwell", "approach": "symm mem",
        "stack": "cu128", "outcome": "failed", "error": "KeyError: 12", "blocked_by": [SYMM],
    },
    "attempts/2026-02-24-both-allreduces.yaml": {
        "title": "Both fast allreduces", "date": "2026-02-24", "campaign": "blackwell", "approach": "either one",
        "stack": "cu128", "outcome": "failed", "blocked_by": [TWO],
    },
    "attempts/2026-01-10-old-torch.yaml": {
        "title": "Old torch wheel", "date": "2026-01-10", "campaign": "blackwell", "approach": "stock wheel",
        "stack": "cu126", "outcome": "failed",
        "error": "CUDA error: no kernel image is available for execution on the device", "blocked_by": [WHEEL],
    },
}
"""The records tree; the latest attempt runs on ``cu128``, so that is the default ``--from``."""
