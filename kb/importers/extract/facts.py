"""Stack and platform facts: from tool output (``nvidia-smi``, ``nvcc``, ``pip``, a torch probe) and
from a document's prose (``Stack until 2026-02-26: CUDA toolkit 12.8.1, ...``)."""

from __future__ import annotations

import datetime as dt
import re

from packaging.utils import canonicalize_name

from kb.importers.events import Event
from kb.importers.extract.model import Evidence, Fact, locator_text, short_quote
from kb.toolout import parse_nvcc_version, parse_nvidia_smi, parse_pip_freeze, parse_torch_probe
from kb.versions import canonical_component, component_for_package

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


def _output_facts(command: str | None, output: str, result: Event, position: int) -> list[Fact]:
    """Stack and platform facts in one tool output, read with the shared parsers of
    :mod:`kb.toolout` (the same reading as ``kb capture``): ``nvidia-smi`` → ``driver`` and
    ``cuda-driver`` (:func:`~kb.toolout.parse_nvidia_smi`); ``nvcc --version`` → ``cuda``, nvcc's
    full version (``release 13.0, V13.0.88`` → ``13.0.88``; ``12.8`` from a lone ``Build`` line,
    :func:`~kb.toolout.parse_nvcc_version`); ``pip freeze``/``pip list``/``pip show`` → the
    components :func:`kb.versions.component_for_package` knows; kb's torch probe
    (:func:`~kb.toolout.parse_torch_probe`) or an ad-hoc ``print(torch.__version__, ...)``;
    ``NCCL version 2.27.3`` lines (NCCL's own ``NCCL INFO`` banner) → ``nccl``."""
    facts: list[Fact] = []
    where = locator_text(result.locator)

    def add(scope: str, name: str, value: str, quote: str) -> None:
        facts.append(Fact(scope, name, value, Evidence(f"{scope}.{name}", where, short_quote(quote)), position))

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
        facts.extend(_pip_facts(output, where, position))
    if re.search(r"^torch\.version\.cuda\b|^cuda available\b", output, re.M):
        facts.extend(_probe_facts(output, where, position))
    elif command and ("print(" in command and "__version__" in command or "device_count" in command):
        facts.extend(_print_facts(command, output, where, position))
    return facts


def _pip_facts(output: str, where: str, position: int) -> list[Fact]:
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
            facts.append(Fact("stack", component, version,
                              Evidence(f"stack.{component}", where, short_quote(quote.group(0) if quote else f"{package}=={version}")),
                              position))
    return facts


def _probe_facts(output: str, where: str, position: int) -> list[Fact]:
    """Facts from the output of kb's torch probe script (:func:`kb.toolout.parse_torch_probe`)."""
    probe = parse_torch_probe(output)
    facts = []

    def add(scope: str, name: str, value: object, key: str) -> None:
        quote = re.search(rf"^{re.escape(key)}\b.*$", output, re.M)
        facts.append(Fact(scope, name, str(value), Evidence(f"{scope}.{name}", where, short_quote(quote.group(0) if quote else key)), position))

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


def _print_facts(command: str, output: str, where: str, position: int) -> list[Fact]:
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
            fact = _expression_fact(expression.strip(), token, line, where, position)
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


def _expression_fact(expression: str, token: str, line: str, where: str, position: int) -> Fact | None:
    def fact(scope: str, name: str, value: str) -> Fact:
        return Fact(scope, name, value, Evidence(f"{scope}.{name}", where, short_quote(line)), position)

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


def _facts_before(facts: list[Fact], position: int, date: dt.date | None = None) -> list[Fact]:
    """The latest fact of each (scope, name) observed before ``position`` and holding on ``date``."""
    latest: dict[tuple[str, str], Fact] = {}
    for fact in facts:
        if fact.position > position:
            continue
        if fact.until is not None and (date is None or date >= fact.until):
            continue
        latest[(fact.scope, fact.name)] = fact
    return list(latest.values())


def _prose_facts(event: Event) -> list[Fact]:
    """Stack and platform facts a document's prose states (``Stack until 2026-02-26: CUDA
    toolkit 12.8.1, ...``, ``The venv ships PyTorch 2.8.0+cu128``), only from sentences about
    what ran (:data:`_NOT_RAN`)."""
    facts = []
    until_match = _UNTIL.search(event.text)
    until = dt.date.fromisoformat(until_match.group(1)) if until_match else None
    where = locator_text(event.locator)
    for sentence in re.split(r"(?<=[.;])\s+|\n", re.sub(r"\*\*|__|`", "", event.text)):
        for pattern, name in _PROSE_STACK if not _NOT_RAN.search(sentence) else ():
            for match in pattern.finditer(sentence):
                component = name or canonical_component(match.group(1))
                version = match.group(2) if not name else match.group(1)
                facts.append(Fact("stack", component, version, Evidence(f"stack.{component}", where, short_quote(match.group(0))),
                                  event.index, until))
        for pattern, name in _PROSE_PLATFORM:
            for match in pattern.finditer(sentence):
                if name == "gpu":
                    facts.append(Fact("platform", "gpu_count", match.group(1), Evidence("platform.gpu_count", where, short_quote(match.group(0))), event.index))
                    facts.append(Fact("platform", "gpu", match.group(2).strip(), Evidence("platform.gpu", where, short_quote(match.group(0))), event.index))
                elif name == "nvlink":
                    facts.append(Fact("platform", "nvlink", "false", Evidence("platform.nvlink", where, short_quote(match.group(0))), event.index))
                elif name == "interconnect" and re.match(r"nvlink", match.group(1), re.I) and re.search(
                        r"\b(no|without)\s+NVLink", sentence, re.I):
                    continue  # "no NVLink" is not an interconnect
                else:
                    facts.append(Fact("platform", name, match.group(1), Evidence(f"platform.{name}", where, short_quote(match.group(0))), event.index))
    return facts
