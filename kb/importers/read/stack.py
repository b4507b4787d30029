"""Stack and platform facts: from tool output (``nvidia-smi``, ``nvcc``, ``pip``, a torch probe,
NCCL's banner, llama.cpp's ``ggml_cuda_init`` device lines) and from a document's prose (``Stack
until 2026-02-26: CUDA toolkit 12.8.1, ...``).

The tool outputs are read by the parsers ``kb capture`` uses (:mod:`kb.toolout`). Every reader here
returns plain :class:`StackFact` tuples; the scoring stage locates them.

>>> [(f.scope, f.name, f.value) for f in prose_facts("Stack: CUDA toolkit 12.8.1, driver 590.48.01, PyTorch 2.10.0+cu128")]
[('stack', 'cuda', '12.8.1'), ('stack', 'driver', '590.48.01'), ('stack', 'torch', '2.10.0+cu128')]
>>> [(f.name, f.value) for f in output_facts(None, "  Device 0: NVIDIA GeForce RTX 5090, compute capability 12.0, VMM: yes")]
[('gpu', 'NVIDIA GeForce RTX 5090'), ('compute_capability', '12.0')]
"""

from __future__ import annotations

import datetime as dt
import re
from typing import NamedTuple

from packaging.utils import canonicalize_name

from kb.toolout import parse_nvcc_version, parse_nvidia_smi, parse_pip_freeze, parse_torch_probe
from kb.versions import canonical_component, component_for_package

SOURCES = {
    "nvidia-smi, nvcc --version, pip freeze/list/show and torch probes (kb.toolout, tests/fixtures/capture)": (
        "Driver Version", "CUDA Version", "Cuda compilation tools", "Build cuda_"),
    "NCCL's INFO banner": ("NCCL version",),
    "llama.cpp ggml-cuda device listing": ("ggml_cuda_init", "compute capability"),
}
"""The documented outputs read."""


class StackFact(NamedTuple):
    """One fact: ``scope`` (``stack`` or ``platform``), ``name`` (a component such as ``cuda``,
    ``torch``; or ``gpu``, ``gpu_count``, ``compute_capability``, ``interconnect``, ``nvlink``),
    ``value`` as written, ``quote`` (the line it was read from), ``until`` (it holds before this
    date only)."""

    scope: str
    name: str
    value: str
    quote: str
    until: dt.date | None = None


_DEVICE = re.compile(r"^\s*Device\s+\d+:\s*(.+?),\s*(?:compute capability\s+(\d+\.\d+)|gfx\d+)", re.M)
_UNTIL = re.compile(r"\b(?:until|before)\s+(\d{4}-\d{2}-\d{2})", re.I)


_VERSION = r"v?(\d+\.\d+(?:\.\d+)?(?:(?:rc|a|b|\.post|\.dev)\d+)*(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?)(?![\w+]|\.\d|\.x\b)"
_COMPONENT_WORDS = sorted({"PyTorch", "torch", "vLLM", "SGLang", "sgl-kernel", "FlashInfer", "flashinfer-python", "NCCL",
                           "Triton", "TensorRT-LLM", "transformers", "xformers", "flash-attn", "FlashAttention",
                           "DeepEP", "DeepGEMM", "mscclpp", "bitsandbytes"}, key=len, reverse=True)
_PROSE_STACK = [
    (re.compile(r"\bCUDA toolkit\s+" + _VERSION, re.I), "cuda"),
    (re.compile(r"\bdriver\s+(?:version\s+)?(\d{3}\.\d+(?:\.\d+)?)", re.I), "driver"),
    (re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in _COMPONENT_WORDS) + r")\s+" + _VERSION, re.I), ""),
]
"""Versions written in prose: the CUDA toolkit, the driver, and any component of
:data:`kb.versions.COMPONENTS` by a name people write (``PyTorch 2.8.0+cu128`` → ``torch``); a
range (``v0.4.0+``, ``0.5.x``) is no version."""

_NOT_RAN = re.compile(r"\bfail|\bnot (?:yet )?(?:tried|installed|used|run)\b|\bnever\b|\bconsider|\bdiscuss|\balternative"
                      r"|\bfallback\b|\binstead\b|\bwould\b|\bcould\b|\bmight\b|\bplan(?:ned)?\b|\btodo\b|\bor\b", re.I)
"""Words of a sentence about a version that did not run (a failed install, an untried
alternative, what was only considered): its versions are no stack facts."""


_PROSE_PLATFORM = [
    (re.compile(r"\b(\d+)\s*[×x]\s*(?:NVIDIA\s+)?([A-Z][\w -]*?(?:GPU|H100|H200|B200|A100|Blackwell|Hopper|Ada|L40S?|\d{4}))\b"), "gpu"),
    (re.compile(r"\bcompute capability\s+(\d+\.\d+)", re.I), "compute_capability"),
    (re.compile(r"\b(PCIe\s+Gen\s*\d|NVLink\s*\d*|NVSwitch)\b", re.I), "interconnect"),
    (re.compile(r"\b(no|without)\s+NVLink\b", re.I), "nvlink"),
]


def output_facts(command: str | None, output: str) -> list[StackFact]:
    """Stack and platform facts in one tool output (``command`` helps read a ``print(...)`` probe), read with the shared parsers of
    :mod:`kb.toolout` (the same reading as ``kb capture``): ``nvidia-smi`` → ``driver`` and
    ``cuda-driver`` (:func:`~kb.toolout.parse_nvidia_smi`); ``nvcc --version`` → ``cuda``, nvcc's
    full version (``release 13.0, V13.0.88`` → ``13.0.88``; ``12.8`` from a lone ``Build`` line,
    :func:`~kb.toolout.parse_nvcc_version`); ``pip freeze``/``pip list``/``pip show`` → the
    components :func:`kb.versions.component_for_package` knows; kb's torch probe
    (:func:`~kb.toolout.parse_torch_probe`) or an ad-hoc ``print(torch.__version__, ...)``;
    ``NCCL version 2.27.3`` lines (NCCL's own ``NCCL INFO`` banner) → ``nccl``."""
    facts: list[StackFact] = []

    def add(scope: str, name: str, value: str, quote: str) -> None:
        facts.append(StackFact(scope, name, value, quote.strip()))

    def line_with(pattern: str) -> str:
        match = re.search(rf"^.*{pattern}.*$", output, re.M)
        return match.group(0) if match else pattern

    if "Driver Version" in output or "CUDA Version" in output:
        smi = parse_nvidia_smi(output)
        if smi["driver"]:
            add("stack", "driver", smi["driver"], line_with("Driver Version"))
        if smi["cuda_driver"]:
            add("stack", "cuda-driver", smi["cuda_driver"], line_with("CUDA Version"))
    if "Cuda compilation tools" in output or "Build cuda_" in output:
        nvcc = parse_nvcc_version(output)
        if nvcc["toolkit"]:
            add("stack", "cuda", nvcc["toolkit"],
                line_with(r"release \d") if "Cuda compilation tools" in output else line_with("Build cuda_"))
    for match in re.finditer(r"^.*\bNCCL version\s+(\d+\.\d+\.\d+).*$", output, re.M):
        add("stack", "nccl", match.group(1), match.group(0))
    if command and re.search(r"\bpip\b", command):
        facts.extend(_pip_facts(output))
    if re.search(r"^torch\.version\.cuda\b|^cuda available\b", output, re.M):
        facts.extend(_probe_facts(output))
    elif command and (("print(" in command and "__version__" in command) or "device_count" in command):
        facts.extend(_print_facts(command, output))
    for match in _DEVICE.finditer(output):
        add("platform", "gpu", match.group(1).strip(), match.group(0))
        if match.group(2):
            add("platform", "compute_capability", match.group(2), match.group(0))
        break
    return facts


def _pip_facts(output: str) -> list[StackFact]:
    """Components in ``pip freeze``/``pip list`` output (:func:`kb.toolout.parse_pip_freeze`)
    and in ``pip show`` blocks (``Name:``/``Version:``); other packages are no stack facts."""
    facts = []
    found: list[tuple[str, str]] = list(parse_pip_freeze(output).items())
    shown = re.findall(r"^Name:\s*(\S+)\s*\nVersion:\s*(\S+)", output, re.M)
    found += [(canonicalize_name(n), v) for n, v in shown]
    for package, version in found:
        component = component_for_package(package)
        if component:
            quote = re.search(rf"^.*{re.escape(version)}.*$", output, re.M)
            facts.append(StackFact("stack", component, version, quote.group(0) if quote else f"{package}=={version}"))
    return facts


def _probe_facts(output: str) -> list[StackFact]:
    """Facts from the output of kb's torch probe script (:func:`kb.toolout.parse_torch_probe`)."""
    probe = parse_torch_probe(output)
    facts = []

    def add(scope: str, name: str, value: object, key: str) -> None:
        quote = re.search(rf"^{re.escape(key)}\b.*$", output, re.M)
        facts.append(StackFact(scope, name, str(value), quote.group(0) if quote else key))

    for key, name in (("torch", "torch"), ("torch_cuda", "torch-cuda"), ("nccl", "nccl"), ("triton", "triton")):
        if probe.get(key):
            add("stack", name, probe[key], key.replace("_", ".version.") if key == "torch_cuda" else key)
    for dist, version in probe.get("dists", {}).items():
        component = component_for_package(dist)
        if component and component not in ("torch", "triton", "nccl"):
            add("stack", component, version, "dist")
    if probe.get("device_count"):
        add("platform", "gpu_count", probe["device_count"], "device_count")
    if probe["devices"]:
        add("platform", "compute_capability", probe["devices"][0]["capability"], "device")
    return facts


_PRINT_ARG = re.compile(r"print\((.*)\)", re.S)


def _print_facts(command: str, output: str) -> list[StackFact]:
    """Facts from ``python -c "...; print(torch.__version__, torch.version.cuda, ...)"``:
    the printed expressions are matched, in order, with the tokens of the output line that
    has as many (``(12, 0)`` counts as one)."""
    match = _PRINT_ARG.search(command)
    if not match:
        return []
    expressions = _split_args(match.group(1))
    lines = [line for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        tokens = re.findall(r"\([^)]*\)|\S+", line)
        if len(tokens) != len(expressions):
            continue
        facts = []
        for expression, token in zip(expressions, tokens):
            fact = _expression_fact(expression.strip(), token, line)
            if fact:
                facts.append(fact)
        if facts:
            return facts
    return []


def _split_args(text: str) -> list[str]:
    args, depth, current = [], 0, ""
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            args.append(current)
            current = ""
        else:
            current += char
    return [a for a in args + [current] if a.strip()]


def _expression_fact(expression: str, token: str, line: str) -> StackFact | None:
    def fact(scope: str, name: str, value: str) -> StackFact:
        return StackFact(scope, name, value, line.strip())

    if expression == "torch.version.cuda":
        return fact("stack", "torch-cuda", token) if re.fullmatch(r"\d+\.\d+", token) else None
    if "get_device_capability" in expression:
        cap = re.fullmatch(r"\((\d+),\s*(\d+)\)", token)
        return fact("platform", "compute_capability", f"{cap.group(1)}.{cap.group(2)}") if cap else None
    if "device_count" in expression:
        return fact("platform", "gpu_count", token) if token.isdigit() else None
    if "get_device_name" in expression:
        return None
    module = re.fullmatch(r"([A-Za-z_][\w]*)\.__version__", expression)
    if module and re.match(r"^\d", token):
        component = canonical_component(module.group(1))
        return fact("stack", component, token)
    return None


def prose_facts(text: str) -> list[StackFact]:
    """Stack and platform facts a document's prose states (``Stack until 2026-02-26: CUDA
    toolkit 12.8.1, ...``, ``The venv ships PyTorch 2.8.0+cu128``), only from sentences about
    what ran (:data:`_NOT_RAN`)."""
    facts = []
    until_match = _UNTIL.search(text)
    until = dt.date.fromisoformat(until_match.group(1)) if until_match else None
    for sentence in re.split(r"(?<=[.;])\s+|\n", re.sub(r"\*\*|__|`", "", text)):
        for pattern, name in _PROSE_STACK if not _NOT_RAN.search(sentence) else ():
            for match in pattern.finditer(sentence):
                component = name or canonical_component(match.group(1))
                version = match.group(2) if not name else match.group(1)
                facts.append(StackFact("stack", component, version, match.group(0), until))
        for pattern, name in _PROSE_PLATFORM:
            for match in pattern.finditer(sentence):
                if name == "gpu":
                    facts.append(StackFact("platform", "gpu_count", match.group(1), match.group(0)))
                    facts.append(StackFact("platform", "gpu", match.group(2).strip(), match.group(0)))
                elif name == "nvlink":
                    facts.append(StackFact("platform", "nvlink", "false", match.group(0)))
                elif name == "interconnect" and re.match(r"nvlink", match.group(1), re.I) and re.search(
                        r"\b(no|without)\s+NVLink", sentence, re.I):
                    continue  # "no NVLink" is not an interconnect
                else:
                    facts.append(StackFact("platform", name, match.group(1), match.group(0)))
    return facts


_GPU = re.compile(
    r"\b(?:GPUs?|CUDA|ROCm|HIP|NVIDIA|GeForce|RTX\s?\d{4}|RTX PRO|Quadro|Tesla|[AHBL]\d{2,3}[A-Z]?\b|T4\b|P40\b|P100\b|V100\b|K80\b|L4\b|GH200|GB200|GB10|"
    r"MI\d{3}X?|Radeon|RX\s?\d{4}|Instinct|Blackwell|Hopper|Ampere|Ada Lovelace|sm_?\d{2,3}|gfx\d{3,4}|Apple M\d|"
    r"M\d (?:Max|Pro|Ultra)|Metal|MLX|TPU|vLLM|SGLang|llama\.cpp|TensorRT|nccl|NCCL|PyTorch|torch|Triton|CUTLASS|"
    r"cuBLAS|FlashInfer|FlashAttention|flash[-_ ]?attn|GEMM|DeepGEMM|xformers|ONNX|exllama\w*|Ollama|GGUF|LLM|"
    r"ktransformers|MLC|TGI|LMDeploy)\b")
"""Names that place a text in GPU or inference work: GPU families and models, their toolkits
(CUDA, ROCm, Metal), inference engines and the kernel libraries they run."""


def mentions_gpu(text: str) -> bool:
    """Whether ``text`` names a GPU, a GPU toolkit or an inference engine.

    >>> mentions_gpu("ran on 2x RTX 4090 with CUDA 12.8"), mentions_gpu("the web app's p95 fell to 475 ms")
    (True, False)
    """
    return bool(_GPU.search(text))


_DEVICE_NAME = re.compile(
    r"\b(?:RTX\s?(?:PRO\s?)?A?\d{4}|A\d{4}|(?:GTX\s?)?[2-5]0[5-9]0(?:\s?Ti)?|Quadro|Tesla|[AHBL]\d{2,3}[A-Z]?|T4|P40|P100|V100|K80|"
    r"L4|GH200|GB200|GB10|MI\d{3}X?|Radeon|RX\s?\d{4}|Instinct|gfx\d{3,4}|Apple M\d|M\d (?:Max|Pro|Ultra)|Jetson|Orin|"
    r"Arc A\d{3}|TPU\s?v?\d*|Xeon|EPYC|Ryzen|Strix Halo|DGX Spark)\b")
"""Names of devices themselves (GPU, accelerator and CPU models), not of the software around them."""


def names_device(text: str) -> bool:
    """Whether ``text`` names a device (a GPU, accelerator or CPU model): a column headed
    ``5090 @ 400W`` or ``Modal A100`` holds runs on that device, ``torch 2.0`` does not.

    >>> names_device("5090 @ 400W"), names_device("Modal A100"), names_device("torch 2.0"), names_device("FA on")
    (True, True, False, False)
    """
    return bool(_DEVICE_NAME.search(text))
