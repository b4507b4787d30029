"""Shell command lines: the program a command runs, its flags and environment, and whether it
runs a benchmark tool kb has a reader for.

Shell syntax (POSIX word splitting through :mod:`shlex`, ``;``/``&&``/``|`` separators,
``NAME=value`` assignments before the program, ``export``), launchers and wrappers (``sudo``,
``time``, ``timeout N``, ``nohup``, ``numactl``, ``mpirun -x NAME=value``, ``torchrun``,
``python -m``, ``ssh host '...'``, ``bash -c '...'``) and the programs that only inspect, move
files or install (``ls``, ``cat``, ``pip``, ``nvidia-smi``, ...), whose failure alone is no run.

>>> command_config("NCCL_ALGO=Tree mpirun -np 8 ./build/all_reduce_perf -b 8 -e 1G --tp 8")
(['--tp 8'], {'NCCL_ALGO': 'Tree'})
>>> program_of("python3 -m sglang.bench_serving --backend sglang"), program_of("ls -la && cat x")
('sglang.bench_serving', None)
>>> benchmark_tool("vllm bench serve --model m"), benchmark_tool("./build/all_reduce_perf -g 8")
('vllm-bench', 'nccl-tests')
"""

from __future__ import annotations

import functools
import re
import shlex

SOURCES = {
    "POSIX shell word splitting and the launchers' documented options": (),
    "Open MPI mpirun(1) options": ("mpirun --allow-run-as-root -np 4", "--hostfile", "-H", "--tag-output"),
    "Claude Code Bash tool (run_in_background) and POSIX job control": ("Command running in background with ID",
                                                                       "started in the background"),
    "vLLM documentation, the OpenAI-compatible server (its module entry point)": ("vllm.entrypoints.openai.api_server",),
}
"""What the rules rest on."""

COMMANDS = {
    "vllm-bench": ("vllm bench serve", "vllm bench throughput", "vllm bench latency", "benchmark_serving.py",
                   "benchmark_throughput.py", "benchmark_latency.py"),
    "sglang-bench": ("sglang.bench_serving", "sglang.bench_one_batch", "sglang.bench_offline_throughput",
                     "bench_serving.py", "bench_one_batch.py"),
    "llama-bench": ("llama-bench", "llama-batched-bench"),
    "nccl-tests": ("_perf",),
    "trtllm-bench": ("trtllm-bench",),
    "aiperf": ("aiperf profile", "genai-perf profile", "genai-perf", "aiperf"),
}
"""Benchmark programs (as their documentation invokes them) → the reader of their output."""

_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?:(?:=|\s+)([A-Z0-9][\w.:/+-]*|\d[\w.]*|/[\w./-]+))?")


_ENV = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$")
def command_config(command: str) -> tuple[list[str], dict[str, str]]:
    """Flags (``"--tp 8"``, ``"--enable-torch-symm-mem"``) and ``NAME=value`` env of a shell
    command; quoted inner commands (``ssh host '...'``, ``bash -c '...'``) are opened."""
    flags: list[str] = []
    env: dict[str, str] = {}
    for tokens in _segments(command):
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token == "export" or token == "env":
                i += 1
                continue
            match = _ENV.match(token)
            if match and (not flags or (i > 0 and tokens[i - 1] in ("-x", "--env", "-e"))):
                env[match.group(1)] = match.group(2)  # before the program, or mpirun's -x NAME=value
            elif token.startswith("--") and len(token) > 2:
                if "=" in token:
                    flags.append(token)
                elif i + 1 < len(tokens) and not tokens[i + 1].startswith("-") and tokens[i + 1] not in ("|", ">", "<"):
                    flags.append(f"{token} {tokens[i + 1]}")
                    i += 1
                else:
                    flags.append(token)
            i += 1
    return flags, env


def _shell_tokens(command: str) -> list[str]:
    """Shell words of ``command`` with ``;``, ``&`` and ``|`` runs as words of their own (split on
    whitespace when the quoting is unbalanced). A fresh list each call (the split is cached:
    several readers split the same command)."""
    return list(_split(command))


@functools.lru_cache(maxsize=4096)
def _split(command: str) -> tuple[str, ...]:
    if not any(c in command for c in "'\"\\;&|#$`"):
        return tuple(command.split())  # nothing shlex would treat specially: its words are the blanks' split
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        return tuple(lexer)
    except ValueError:
        return tuple(command.split())


def _segments(command: str, depth: int = 0) -> list[list[str]]:
    tokens = _shell_tokens(command)
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token and set(token) <= set(";&|"):
            segments.append([])
        elif " " in token and depth < 3 and ("--" in token or "=" in token):
            segments.extend(_segments(token, depth + 1))
            segments.append([])
        else:
            segments[-1].append(token)
    return [s for s in segments if s and not _is_probe(s)]


def _is_probe(tokens: list[str]) -> bool:
    head = " ".join(tokens[:3])
    return bool(re.search(r"\b(nvidia-smi|nvcc|pip|uv pip|wc|tail|head|cat|ls|cd|grep)\b", head)) and not _runs_benchmark(" ".join(tokens))


def text_flags(text: str) -> list[str]:
    """``--flag VALUE`` written in prose or code spans; a value counts only when it looks like
    one (a number, an upper-case name, a path), so ``--cuda-graph-max-bs from 512`` gives
    the flag alone."""
    flags = []
    for match in _FLAG.finditer(text):
        flag = match.group(1) + (f" {match.group(2)}" if match.group(2) else "")
        flag = flag.rstrip(".,;:")
        if flag not in flags:
            flags.append(flag)
    return flags


_NOT_RUNS = frozenset(
    ["ls", "cat", "grep", "egrep", "rg", "find", "head", "tail", "sed", "awk", "cd", "git", "pip", "pip3", "uv", "conda", "mamba", "mkdir", "rm", "cp", "mv", "ln", "echo", "printf", "which", "type", "nvidia-smi", "nvcc", "curl", "wget", "ps", "kill", "pkill", "sleep", "tmux", "screen", "du", "df", "free", "env", "export", "source", ".", "chmod", "chown", "touch", "tar", "unzip", "zip", "wc", "sort", "uniq", "less", "more", "diff", "apt", "apt-get", "yum", "brew", "jq", "until", "while", "for", "do", "done", "then", "if", "fi", "true", "false", "hostname", "uname", "lscpu", "lspci", "whoami", "id", "date", "pwd", "tee", "xargs", "cut", "tr", "stat", "file", "history", "clear", "set", "unset", "alias", "wait", "huggingface-cli", "hf", "gh", "code", "vim", "nano", "open", "nproc", "watch", "top", "htop", "journalctl", "systemctl", "docker-compose"])
"""Commands that inspect, move files or install: a failure of one alone is no run."""

_LOOP_HEADS = frozenset({"for", "select", "case", "done", "fi", "esac", "}", ")"})
_COMPOUND = frozenset({"do", "then", "else", "elif", "if", "while", "until", "{", "(", "!"})
"""Words of a POSIX shell compound command (``for ...; do CMD; done``, ``if CMD; then ...``,
POSIX.1-2017 Shell Command Language, 2.9.4) that come before the command it runs."""
_WRAPPERS = frozenset({"sudo", "time", "nohup", "exec", "stdbuf", "numactl", "taskset", "nice", "caffeinate"})


def _program_tokens(tokens: list[str]) -> list[str]:
    """``tokens`` of one command without env assignments and wrappers (``sudo``, ``time``,
    ``timeout 600``, ``env``), so the first token is the program run."""
    if tokens and tokens[0] in _LOOP_HEADS:
        return []  # "for i in 1 2 3", "done": the loop's words, the commands are in its body
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if _ENV.match(token) or token in _WRAPPERS or token == "env" or token in _COMPOUND:
            i += 1
        elif token == "timeout":
            i += 2
        else:
            break
    return tokens[i:]


_SHELLS = frozenset({"ssh", "bash", "sh", "zsh", "powershell", "pwsh", "cmd"})
_WINDOWS_SHELLS = frozenset({"powershell", "pwsh", "cmd"})
_CMDLET = re.compile(r"(?:Get|Set|Select|Start|Stop|New|Remove|Copy|Move|Test|Out|Write|Invoke-Web|Add|Clear|Measure|"
                     r"Sort|Where|ForEach|Format|Wait|Push|Pop|Resolve|Split|Join|Rename)-[A-Z]\w*", re.I)
"""PowerShell cmdlets (``Verb-Noun``, Microsoft's approved verbs that read, move or manage): no runs."""
_EDITS = frozenset({"apply_patch", "patch"})
"""Programs that edit files (``apply_patch`` is how Codex's shell tool writes a change): no runs."""
_BUILD_TOOLS = frozenset({"make", "cmake", "ninja", "meson", "bazel", "msbuild", "cargo", "nvcc"})
"""Programs that build: a build that fails is a failed try (a kernel that does not compile), one
that works measured nothing."""


def _head(token: str) -> str:
    """A program's name from its path, Windows' too (``.\\build.bat``, ``C:\\x\\powershell.exe``),
    without the ``.exe`` suffix."""
    head = token.replace("\\", "/").rsplit("/", 1)[-1]
    return head[:-4] if head.lower().endswith(".exe") else head


def _shell_inner(head: str, tokens: list[str]) -> str | None:
    """The command a shell was given to run: after ``-c`` (``bash -lc '...'``, Codex's usual
    wrapper), ``-Command``/``-c`` (PowerShell) or ``/c``/``/k`` (cmd), as one string; Windows
    paths with ``/`` (only a program's name matters here). ``None`` when it was given none."""
    if head == "ssh":
        return None
    for i, token in enumerate(tokens[1:], 1):
        lowered = token.lower()
        given = lowered in ("-command", "-c", "/c", "/k") if head in _WINDOWS_SHELLS else \
            bool(re.fullmatch(r"-[a-z]*c", lowered))
        if given and i + 1 < len(tokens):
            inner = " ".join(tokens[i + 1:])
            return inner.replace("\\", "/") if head in _WINDOWS_SHELLS else inner
    return None


def only_builds(command: str) -> bool:
    """Whether every part of ``command`` that is not an inspection builds: a build tool
    (``make``, ``cmake``, ``nvcc``), a script named for building (``build.sh``, ``.\\build.bat``,
    ``compile.ps1``) or ``setup.py build``; inside ``bash -c``/PowerShell wrappers too."""
    found = False
    for tokens in _raw_segments(command):
        tokens = _program_tokens(tokens)
        if not tokens:
            continue
        head = _head(tokens[0])
        if head in _SHELLS:
            inner = _shell_inner(head, tokens)
            if inner is None:
                return False
            if not only_builds(inner):
                return False
            found = True
            continue
        if head in _NOT_RUNS or _CMDLET.fullmatch(head):
            continue
        stem = head.rsplit(".", 1)[0].lower() if "." in head else head.lower()
        builds = head in _BUILD_TOOLS or stem in ("build", "compile", "rebuild") or \
            (head.startswith("python") and len(tokens) > 2 and tokens[1] == "setup.py" and tokens[2].startswith(("build", "bdist")))
        if not builds:
            return False
        found = True
    return found


_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


def _without_heredocs(lines: list[str]) -> list[str]:
    """The lines without the bodies of here-documents (``cat <<'EOF'`` ... ``EOF``): text, not commands."""
    out: list[str] = []
    until: str | None = None
    for line in lines:
        if until is not None:
            if line.strip() == until:
                until = None
            continue
        out.append(line)
        found = _HEREDOC.search(line) if len(lines) > 1 else None
        if found:
            until = found.group(1)
    return out


def _balanced(line: str) -> bool:
    """Whether a line's quotes are closed within it."""
    try:
        shlex.split(line)
    except ValueError:
        return False
    return True


def _raw_segments(command: str) -> list[list[str]]:
    """The simple commands of ``command``: split at ``;``, ``&``, ``|`` and at line ends (a block of
    commands, one a line; a backslash at a line's end continues it)."""
    segments: list[list[str]] = [[]]
    lines = command.replace("\\\n", " ").splitlines() or [""]
    if len(lines) > 1 and not all(_balanced(line) for line in lines):
        lines = [command]  # a quoted string spans lines (bash -lc '...'): one command
    lines = _without_heredocs(lines)
    for line in lines:
        for token in _shell_tokens(line):
            if token and set(token) <= set(";&|"):
                segments.append([])
            else:
                segments[-1].append(token)
        segments.append([])
    return [s for s in segments if s]


def program_of(command: str, depth: int = 0) -> str | None:
    """The program a shell command runs, for grouping runs into families: a script's file name
    (``python3 tools/sweep.py`` → ``sweep.py``), a module (``python -m sglang.bench_serving`` →
    ``sglang.bench_serving``), the program a launcher starts (``mpirun ... all_reduce_perf`` →
    ``all_reduce_perf``), ``vllm bench``/``vllm serve``, or a binary's name; commands inside
    ``ssh host '...'`` and ``bash -c '...'`` are opened. ``None`` when every part of the command
    only inspects, moves files or installs (:data:`_NOT_RUNS`)."""
    for tokens in _raw_segments(command):
        tokens = _program_tokens(tokens)
        if not tokens:
            continue
        head = _head(tokens[0])
        if head in _SHELLS and depth < 3:
            inner = _shell_inner(head, tokens)
            if inner is not None:
                return program_of(inner, depth + 1)  # the shell runs what it was given, and only that
            inner = next((t for t in reversed(tokens[1:]) if " " in t), None)
            if inner:
                found = program_of(inner, depth + 1)
                if found:
                    return found
            if head == "ssh":
                continue
        if head == "nvcc" and any(t.endswith((".cu", ".cpp", ".cc", ".c")) for t in tokens[1:]):
            return head  # compiling a kernel: a build, whose failure is the try's
        if head in _NOT_RUNS or head in _EDITS or _CMDLET.fullmatch(head):
            continue
        if re.fullmatch(r"python\d*(?:\.\d+)?|pypy\d*|uv|accelerate|deepspeed", head) or head in ("torchrun", "mpirun", "srun", "mpiexec"):
            rest = tokens[1:]
            if rest[:1] == ["-c"]:
                continue  # inline code: a probe (``python -c 'import torch; ...'``), not a run
            for j, token in enumerate(rest):
                if token == "-m" and j + 1 < len(rest):
                    return rest[j + 1]
                if token.endswith((".py", ".sh")) or (token.startswith(("/", "./")) and not token.startswith("-")):
                    if j > 0 and rest[j - 1] in ("-x", "-H", "--hostfile", "-np", "-n"):
                        continue
                    return token.rsplit("/", 1)[-1]
            return head
        if head == "vllm" and len(tokens) > 1:
            return f"vllm {tokens[1]}"
        if head == "docker" and "run" in tokens[1:3]:
            image = next((t for t in tokens[2:] if ("/" in t and not t.startswith("-") and ":" in t) or t.startswith("vllm/")), None)
            return image or "docker run"
        return head
    return None


def command_in(line: str) -> str | None:
    """The command a line announces after a label (``Running: python3 bench.py --tp 2``,
    ``+ ./run.sh``, ``cmd: torchrun ...``): from the first launcher or script on, when the
    rest looks like a command (:func:`looks_like_command`); ``None`` otherwise."""
    words = line.strip().split()
    for i, word in enumerate(words[:4]):
        head = _head(word)
        if head in _LAUNCHERS or head.endswith((".py", ".sh")) or re.fullmatch(r"python\d*(?:\.\d+)?", head):
            rest = " ".join(words[i:])
            shaped = " -" in rest or any(w.endswith((".py", ".sh")) for w in words[i:])
            return rest if shaped and looks_like_command(rest) else None
    return None


def model_of(flags: list[str], command: str | None = None) -> str | None:
    """The model a run serves or benchmarks, from ``--model X``/``--model-path X``/``-m X``, or,
    given its ``command``, the model a tool takes as its first argument (:data:`_POSITIONAL_MODEL`:
    ``vllm serve MODEL``, ``ollama run MODEL``, ``trtllm-serve MODEL``)."""
    for flag in flags:
        name, _, value = flag.partition(" ")
        name = name.split("=", 1)[0]
        if name in ("--model", "--model-path", "--model-id", "-m") and (value or "=" in flag):
            return value or flag.split("=", 1)[1]
    return _positional_model(command) if command else None


_POSITIONAL_MODEL = {("vllm", "serve"): 2, ("ollama", "run"): 2, ("ollama", "pull"): 2, ("trtllm-serve",): 1,
                     ("mlx_lm.server",): 0, ("lms", "load"): 2}
"""Tools that take the model as a positional argument, by their program words and the argument's
position (vLLM's ``vllm serve <model_tag>``, Ollama's ``ollama run MODEL [PROMPT]``, TensorRT-LLM's
``trtllm-serve <model>``, LM Studio's ``lms load <model>``; their CLI references). ``0``: none."""


def _positional_model(command: str) -> str | None:
    if not any(words[0] in command for words in _POSITIONAL_MODEL) and "llama-" not in command:
        return None  # none of the tools: no need to split the command
    for tokens in _raw_segments(command):
        tokens = _program_tokens(tokens)
        if not tokens:
            continue
        head = _head(tokens[0])
        if head.startswith("llama-") and "-m" in tokens[:-1]:  # llama.cpp's tools: -m, --model FNAME
            return tokens[tokens.index("-m") + 1]
        for words, at in _POSITIONAL_MODEL.items():
            if at and tuple([head, *tokens[1:len(words)]]) == words and len(tokens) > at and \
                    not tokens[at].startswith("-"):
                return tokens[at]
    return None


_SHAPE_VAR = re.compile(r"(?<![\w-])(TP|DP|PP|EP|tp|dp|pp|ep)\s*=\s*(\d+)\b")
_ENV_VAR = re.compile(r"(?<![\w-])([A-Z][A-Z0-9]*_[A-Z0-9_]+)=([^\s,`*|]+)")


def row_config(cell: str) -> tuple[list[str], dict[str, str]]:
    """Config written in a notebook's table cell or list item: ``--flags`` (in code spans or
    not), ``TP=4``/``tp=2``/``DP=2`` as the parallelism flags ``--tp 4`` (written that way,
    they are the launcher's settings, not environment variables), and environment variables,
    which are upper-case names with an underscore (``NCCL_PROTO=Simple``). Markdown emphasis is
    stripped first (``TP=1**`` reads ``TP=1``)."""
    text = re.sub(r"\*\*|__|`", " ", cell)
    flags = text_flags(text)
    for match in _SHAPE_VAR.finditer(text):
        flag = f"--{match.group(1).lower()} {match.group(2)}"
        if not any(f.split(" ")[0] == flag.split(" ")[0] for f in flags):
            flags.append(flag)
    env = {m.group(1): m.group(2) for m in _ENV_VAR.finditer(text)}
    return flags, env


def _runs_benchmark(command: str) -> bool:
    return benchmark_tool(command) is not None


def benchmark_tool(command: str) -> str | None:
    """The tool reader whose program ``command`` runs (:data:`COMMANDS`), or ``None``."""
    for tool, programs in COMMANDS.items():
        for program in programs:
            if program.startswith("_"):
                if re.search(rf"\b\w+{re.escape(program)}\b", command):
                    return tool
            elif program in command:
                return tool
    return None

_QUIET = re.compile(r"^--?(?:model|model-path|tokenizer|port|host|served-model-name|trust-remote-code|api-key|output-file"
                    r"|result-dir|allow-run-as-root|np|H|hostfile)$")


def command_title(command: str) -> str:
    """A title from the command when no narration says what a run tries: the program, the
    arguments and the environment it was given (``all_reduce_perf -b 1G -e 1G NCCL_ALGO=Tree``,
    ``serve_bench.py --tp 1 --no-spec``), paths shortened to file names, without model paths,
    ports, hosts and secrets; at most 80 characters.

    >>> command_title("vllm bench serve --model Qwen/Qwen3-8B --max-concurrency 16")
    'vllm bench serve --max-concurrency 16'
    """
    program = program_of(command) or command.split()[0]
    _, env = command_config(command)
    try:
        tokens = shlex.split(command)
    except ValueError:
        tokens = command.split()
    start = next((i for i, tok in enumerate(tokens) if tok.rsplit("/", 1)[-1] == program.rsplit(" ", 1)[-1]), None)
    if start is None:  # "vllm bench" names two words: the arguments follow the last of them
        start = next((i for i, tok in enumerate(tokens) if tok == program.split(" ")[0]), None)
    rest: list[str] = []
    skip = False
    for token in tokens[start + 1:] if start is not None else []:
        if token in ("|", "&&", ";", ">", "2>&1"):
            break
        if skip:
            skip = False
            continue
        if _QUIET.match(token.split("=", 1)[0]):
            skip = "=" not in token
            continue
        rest.append(token.rsplit("/", 1)[-1] if "/" in token and not token.startswith("-") else token)
    parts = [program] + rest + [f"{k}={v}" for k, v in env.items() if not re.search(r"TOKEN|KEY|SECRET|PASS|IFNAME|GID", k)]
    title = " ".join(parts)
    return title if len(title) <= 80 else title[:80].rsplit(" ", 1)[0]


_PAIR = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]*)=([^\s,;]+)")


def pairs(text: str) -> list[tuple[str, str]]:
    """The ``NAME=value`` pairs a line writes (``ISL=128, OSL=128, Requests=30000``), in order."""
    return _PAIR.findall(text)


_LAUNCHERS = frozenset({"python", "python3", "bash", "sh", "torchrun", "mpirun", "mpiexec", "srun", "docker", "podman",
                        "vllm", "sglang", "trtllm-bench", "trtllm-serve", "llama-bench", "llama-server", "llama-cli",
                        "aiperf", "genai-perf", "ollama", "accelerate", "deepspeed", "uv", "nsys", "ncu", "sudo",
                        "numactl", "taskset", "time", "nohup", "export", "env", "cmake", "make", "ninja", "pip",
                        "pip3", "git", "huggingface-cli", "hf", "curl", "wget", "nvidia-smi", "nvcc", "conda", "apt",
                        "apt-get", "kubectl", "ssh", "cd"})
"""Programs a command line starts with (interpreters, launchers, benchmark and build tools)."""


def looks_like_command(text: str) -> bool:
    """Whether a paragraph is a shell command rather than prose: its first word (after ``NAME=value``
    assignments) is a program path (``./build/bin/llama-bench``, ``/opt/x/bench.py``) or a known
    launcher or tool (:data:`_LAUNCHERS`, ``*_perf``), and it writes a flag or is one line.

    >>> looks_like_command("python benchmarks/benchmark_serving.py --backend vllm \\\\\\n--port 8081")
    True
    >>> looks_like_command("Python is used together with the workers module here.")
    False
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return False
    tokens = lines[0].replace("`", "").split()
    while tokens and _ENV.match(tokens[0]):
        tokens = tokens[1:]
    if not tokens:
        return False
    head = tokens[0]
    program = head.rsplit("/", 1)[-1]
    known = head.startswith(("./", "/", "~/")) or program in _LAUNCHERS or program.endswith(("_perf", ".py", ".sh"))
    flagged = any(t.startswith("-") for line in lines for t in line.split())
    continued = all(line.endswith("\\") for line in lines[:-1])
    return known and (flagged or len(lines) == 1) and continued


def commands_only_text(text: str) -> list[str]:
    """The command lines of a paragraph, backslash continuations joined (code backticks dropped)."""
    joined: list[str] = []
    pending = ""
    for line in text.replace("`", "").splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        pending = f"{pending} {stripped}".strip()
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        joined.append(pending)
        pending = ""
    if pending:
        joined.append(pending)
    return joined


def cell_config(cell: str, known_flags: set[str]) -> tuple[list[str], dict[str, str]]:
    """Config from a table cell such as ``tp8, cuda-graph-max-bs 128``: ``tpN`` → ``--tp N``;
    ``name value`` → ``--name value`` when the document writes ``--name`` somewhere."""
    flags: list[str] = []
    env: dict[str, str] = {}
    for item in re.split(r",\s*", cell.replace("**", "").replace("`", "")):
        item = item.strip()
        tp = re.fullmatch(r"tp\s*(\d+)", item, re.I)
        if tp:
            flags.append(f"--tp {tp.group(1)}")
            continue
        pair = re.fullmatch(r"([a-z][a-z0-9-]+)\s+(\S+)", item)
        if pair and f"--{pair.group(1)}" in known_flags:
            flags.append(f"--{pair.group(1)} {pair.group(2)}")
            continue
        var = re.fullmatch(r"([A-Z][A-Z0-9_]+)=(\S+)", item)
        if var:
            env[var.group(1)] = var.group(2)
    return flags, env


_BACKGROUND = re.compile(r"^\s*Command running in background(?: with ID)?|^\s*\[\d+\]\s+\d+\s*$|started in (?:the )?background",
                         re.I | re.M)
_INSTALL = re.compile(r"\bpip3?\s+install\s+([^;&|]+)")


def runs_in_background(output: str) -> bool:
    """Whether a tool result says the command went on in the background (Claude Code's ``Command
    running in background with ID: 3f1a9c``, a shell's ``[1] 12345``): a server the next runs measure."""
    return bool(_BACKGROUND.search(output))


def backgrounded(command: str) -> bool:
    """Whether ``command`` is started in the background (``vllm serve ... &``): a server, whose
    start-up log measures nothing.

    >>> backgrounded("vllm serve m --port 8000 &"), backgrounded("make && ./bench")
    (True, False)
    """
    stripped = command.rstrip()
    return stripped.endswith("&") and not stripped.endswith("&&")


SERVERS = {
    "vllm serve": "vLLM CLI reference",
    "vllm.entrypoints.openai.api_server": "vLLM server module",
    "sglang.launch_server": "SGLang server arguments page",
    "llama-server": "llama.cpp server README",
    "mlx_lm.server": "mlx-lm server README",
    "trtllm-serve": "TensorRT-LLM trtllm-serve page",
    "text-generation-launcher": "TGI launcher reference",
}
"""Programs that start an inference server (the program :func:`program_of` names, with where it is
documented): their output is a start-up log (load times, memory), which measures no run."""


def starts_server(command: str) -> bool:
    """Whether ``command`` starts an inference server (:data:`SERVERS`; ``ollama serve`` too),
    in the foreground or not, and does nothing else.

    >>> starts_server("vllm serve m --port 8000"), starts_server("vllm bench serve --model m")
    (True, False)
    """
    if len(list(_raw_segments(command))) != 1:
        return False  # "vllm serve ... & sleep 60; vllm bench serve ...": the server and the run that measured it
    program = program_of(command)
    return program in SERVERS or (program == "ollama" and bool(re.search(r"\bollama\s+serve\b", command)))


def installs(command: str) -> list[str]:
    """The packages a command installs with pip (options left out)."""
    return [" ".join(p for p in spec.split() if not p.startswith("-")) for spec in _INSTALL.findall(command)]
