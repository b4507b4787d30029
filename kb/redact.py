"""Redaction of secrets and personal details in text taken from session logs.

Logs hold tokens, passwords, user names, e-mail addresses, host names and private addresses
(FORMATS.md); nothing of that may reach ``records/`` or the published site, nor be printed.
:class:`Redactor` replaces each with a placeholder and counts what it replaced, by kind.

Kinds, placeholders and the rules behind them (applied in this order):

=================  ==============  ===========================================================
kind               placeholder     what
=================  ==============  ===========================================================
``url-password``   ``<user>:<secret>@``  credentials in a URL (``https://bob:pw@host/``)
``email``          ``<email>``     an e-mail address
``host``           ``<host>``      ``user@host`` (ssh targets, shell prompts), the host of
                                   ``ssh``, ``HOST:/path`` in ``scp``/``rsync``, names under private TLDs
                                   (``.local``, ``.lan``, ``.internal``, ``.corp``, ``.home``), and
                                   every bare name the log shows as a host (``on host X``,
                                   ``hostname`` output, NCCL's ``X:pid:tid``), wherever it appears;
                                   ``owner/repo@<sha>`` stays a repository reference
``home-user``      ``<user>``      the user name in ``/home/NAME``, ``/Users/NAME``,
                                   ``C:\\Users\\NAME``; later occurrences of a learned name
``token``          ``<secret>``    Hugging Face (``hf_...``), GitHub, OpenAI/Anthropic
                                   (``sk-...``), Slack, AWS, GitLab, npm tokens;
                                   ``Authorization: Bearer ...``
``env-secret``     ``NAME=<secret>``  ``KEY=value`` where NAME says token/secret/password/key
``cli-secret``     ``--flag <secret>``  ``--api-key X``, ``--token X``, ``--password X``, ...
``secret``         ``<secret>``    anything detect-secrets' plugins find (its default plugin
                                   set without the two high-entropy scanners, which flag most
                                   words of a log when run line by line)
``private-ip``     ``<host>``      IPv4 addresses in private, shared (CGNAT) and link-local
                                   ranges (RFC 1918, RFC 6598, RFC 3927)
=================  ==============  ===========================================================

Sources: detect-secrets 1.5 (``detect_secrets.core.scan.scan_line`` under
``transient_settings``); token shapes from each vendor's documentation (``hf_``, ``ghp_``,
``github_pat_``, ``sk-``, ``xox?-``, ``AKIA``, ``glpat-``, ``npm_``).

>>> r = Redactor()
>>> r.redact("ssh root@10.20.30.40 'HF_TOKEN=hf_Qm7rT2xVb9LpW4nZ8cK1dY6sA3fJ0gHeUo python x'")
"ssh <host> 'HF_TOKEN=<secret> python x'"
>>> r.redact("cd /home/alex/work && mail alex.moreau@example.org")
'cd /home/<user>/work && mail <email>'
>>> sorted(r.counts.items())
[('email', 1), ('home-user', 1), ('host', 1), ('token', 1)]
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

SECRET = "<secret>"
HOST = "<host>"
USER = "<user>"
EMAIL = "<email>"

_SYSTEM_USERS = frozenset({"root", "ubuntu", "admin", "user", "runner", "nobody", "shared", "ec2-user", "debian"})
"""Names in home paths that identify no person (kept when met elsewhere in text)."""

_URL_CREDENTIALS = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^/\s:@'\"<>]+):([^/\s@'\"<>]+)@")
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_USER_AT_HOST = re.compile(
    r"(?<![/\w.-])[A-Za-z_][A-Za-z0-9_.-]*@(?:\d{1,3}(?:\.\d{1,3}){3}\b|[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)+\b"
    r"|[A-Za-z0-9][A-Za-z0-9-]*(?=:))")
"""``user@host``: the host an IP address, a dotted name, or a name followed by ``:`` (a shell
prompt, an scp target). Not ``owner/repo@<sha>`` (a repository at a commit: preceded by ``/``)
nor ``name@word`` in other text (``pp512@d4096``, ``metric@dimension``)."""
_HOST_MENTION = re.compile(
    r"\b(?:on\s+host|host(?:name)?\s*[:=]|hostname\s+is|host|node|server|machine|box)\s+`?([A-Za-z][A-Za-z0-9-]*\d[A-Za-z0-9-]*)\b"
    r"|^\s*([A-Za-z][\w-]*\d[\w-]*):\d+:\d+\s+\[\d+\]"
    r"|\bPid\s+\d+\s+on\s+([A-Za-z][\w-]*)\s+device\b", re.I | re.M)
"""Where a log shows a bare name as a host: ``on host gpu-box-00b4``, ``hostname: a100-vm-17``
(names with a digit), NCCL's ``host:pid:tid [rank]`` log prefix, nccl-tests' ``Pid N on HOST
device``."""
_SSH_HOST = re.compile(r"\b(ssh|mosh|sftp)((?:\s+-[A-Za-z]+(?:\s+(?!-)[^\s@<>'\"]+)?)*)\s+(?!-|<)([A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*)(?=[\s:'\"]|$)")
_COPY_HOST = re.compile(r"(?m)^(?=.*\b(?:scp|rsync)\b)(.*?)(?<=\s)([A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*):(?=[/~])")
_PRIVATE_TLD = re.compile(r"\b[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*\.(?:local|lan|internal|corp|home|intranet)\b")
_HOME = re.compile(r"(/home/|/Users/|[A-Za-z]:\\Users\\)([^/\\\s'\"<>:]+)")
_TOKENS = re.compile(
    r"\bhf_[A-Za-z0-9]{20,}"
    r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bsk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_-]{20,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bglpat-[A-Za-z0-9_-]{20,}"
    r"|\bnpm_[A-Za-z0-9]{36}\b"
)
_BEARER = re.compile(r"(?i)\b(bearer|token)\s+([A-Za-z0-9._~+/-]{12,}=*)")
_SECRET_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:TOKEN(?!S)|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|ACCESS_KEY|PRIVATE_KEY|_KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*"
_ENV_SECRET = re.compile(r"\b(" + _SECRET_NAME + r")=(\"[^\"]*\"|'[^']*'|[^\s'\"]+)", re.IGNORECASE)


def secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``HF_TOKEN``,
    ``OPENAI_API_KEY``, ``DB_PASSWORD``): its value is never kept."""
    return re.fullmatch(_SECRET_NAME, name, re.IGNORECASE) is not None
_CLI_SECRET = re.compile(
    r"(--(?:[a-z0-9-]*-)?(?:api-key|apikey|token|password|passwd|secret|access-key|auth))(=|\s+)(\"[^\"]*\"|'[^']*'|(?!-)[^\s'\"]+)",
    re.IGNORECASE,
)
_IPV4 = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.]*\d)")
_SHARED_NET = ipaddress.ip_network("100.64.0.0/10")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-+/=.]")


class Redactor:
    """Replaces secrets and personal details in text; ``counts`` maps kind → replacements.

    One redactor serves a whole import so that a user name learned from one place (a home
    path, the session's ``cwd``) is also removed where it appears alone later. ``names`` seeds
    that list (e.g. from ``Session.cwd``'s home path: use :meth:`learn`).
    """

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.counts: Counter[str] = Counter()
        self.names: set[str] = set()
        self.hosts: set[str] = set()
        for name in names:
            self._add_name(name)

    def learn(self, text: str | None) -> None:
        """Remember the user names of home paths in ``text`` (nothing is counted)."""
        for match in _HOME.finditer(text or ""):
            self._add_name(match.group(2))

    def learn_hosts(self, text: str | None) -> None:
        """Remember the bare host names ``text`` shows as hosts (see :data:`_HOST_MENTION`, the
        first label of ``user@host.domain``, ``ssh`` targets); each is then redacted wherever it
        appears (nothing is counted here)."""
        text = text or ""
        for match in _HOST_MENTION.finditer(text):
            self._add_host(next(g for g in match.groups() if g))
        for match in _USER_AT_HOST.finditer(text):
            host = match.group(0).split("@", 1)[1]
            if not re.fullmatch(r"[\d.]+", host):
                self._add_host(host.split(".")[0])
        for match in _SSH_HOST.finditer(text):
            self._add_host(match.group(3).split(".")[0])

    def _add_host(self, name: str) -> None:
        if len(name) >= 3 and not name.startswith("<") and re.search(r"[\d-]", name) and name.lower() not in _NOT_HOSTS:
            self.hosts.add(name)

    def _add_name(self, name: str) -> None:
        if len(name) >= 3 and name.lower() not in _SYSTEM_USERS and not name.startswith("<"):
            self.names.add(name)

    def redact(self, text: str) -> str:
        """``text`` with every secret and personal detail replaced (see the module table)."""
        if not text:
            return text
        self.learn_hosts(text)
        text = self._sub(_URL_CREDENTIALS, text, "url-password", lambda m: f"{m.group(1)}{USER}:{SECRET}@")
        text = self._sub(_EMAIL, text, "email", lambda m: EMAIL)
        text = self._sub(_USER_AT_HOST, text, "host", lambda m: HOST)
        text = self._sub(_SSH_HOST, text, "host", lambda m: f"{m.group(1)}{m.group(2)} {HOST}")
        while True:  # scp/rsync targets, HOST:/path (one per pass: the pattern spans the line)
            new = self._sub(_COPY_HOST, text, "host", lambda m: f"{m.group(1)}{HOST}:")
            if new == text:
                break
            text = new
        text = self._sub(_PRIVATE_TLD, text, "host", lambda m: HOST)
        self.learn(text)
        text = self._sub(_HOME, text, "home-user", lambda m: f"{m.group(1)}{USER}")
        text = self._sub(_TOKENS, text, "token", lambda m: SECRET)
        text = self._sub(_BEARER, text, "token", lambda m: f"{m.group(1)} {SECRET}",
                         keep=lambda m: m.group(2) == SECRET.strip("<>") or not re.search(r"\d", m.group(2)))
        text = self._sub(_ENV_SECRET, text, "env-secret", lambda m: f"{m.group(1)}={SECRET}",
                         keep=lambda m: m.group(2) in (SECRET, "") or m.group(2).startswith("$")
                         or bool(re.fullmatch(r"\d{1,5}|true|false|none|null", m.group(2), re.I)))
        text = self._sub(_CLI_SECRET, text, "cli-secret", lambda m: f"{m.group(1)}{m.group(2)}{SECRET}",
                         keep=lambda m: m.group(3) == SECRET or m.group(3).startswith("$"))
        text = self._detect_secrets(text)
        text = self._sub(_IPV4, text, "private-ip", lambda m: HOST, keep=lambda m: not _is_private(m.group(1)))
        for name in sorted(self.names, key=len, reverse=True):
            text = self._sub(_name_pattern(name), text, "home-user", lambda m: USER)
        for host in sorted(self.hosts, key=len, reverse=True):
            text = self._sub(_host_pattern(host), text, "host", lambda m: HOST)
        return text

    def _sub(self, pattern: re.Pattern[str], text: str, kind: str, repl, keep=None) -> str:
        def replace(match: re.Match[str]) -> str:
            if keep is not None and keep(match):
                return match.group(0)
            self.counts[kind] += 1
            return repl(match)

        return pattern.sub(replace, text)

    def _detect_secrets(self, text: str) -> str:
        lines = text.split("\n")
        found = _scan_lines([line for line in lines if line.strip() and len(line) <= 4000])
        for i, line in enumerate(lines):
            for value in found.get(line, ()):
                if not value or "<" in value or value == SECRET.strip("<>"):
                    continue
                start = line.find(value)
                if start < 0:
                    continue
                end = start + len(value)
                while end < len(line) and _TOKEN_CHARS.match(line[end]):
                    end += 1  # detect-secrets may report a prefix only (GitHub: 'ghp')
                line = line[:start] + SECRET + line[end:]
                self.counts["secret"] += 1
            lines[i] = line
        return "\n".join(lines)

    def summary(self) -> str:
        """``"host 7, token 1"``: the kinds redacted and how often, or ``"nothing"``."""
        return ", ".join(f"{k} {n}" for k, n in sorted(self.counts.items())) or "nothing"


_NOT_HOSTS = frozenset({"sm-120", "cu128", "cu130", "cu126", "cu124", "h100", "h200", "b200", "a100", "l40s", "fp8", "int4",
                        "tp-2", "tp-4", "tp-8"})
"""Names that look like hosts but name hardware or builds."""


@lru_cache(maxsize=256)
def _host_pattern(host: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9_<.-])" + re.escape(host) + r"(?![A-Za-z0-9_>-])")


@lru_cache(maxsize=64)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9_<])" + re.escape(name) + r"(?![A-Za-z0-9_>])")


def _is_private(address: str) -> bool:
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    if address.startswith("0."):
        return False
    return (ip.is_private or ip in _SHARED_NET) and not ip.is_loopback and not ip.is_unspecified


_SETTINGS: dict | None = None


def _detect_secrets_settings() -> dict:
    global _SETTINGS
    if _SETTINGS is None:
        from detect_secrets.settings import default_settings

        with default_settings() as settings:
            plugins = [p for p in settings.json()["plugins_used"] if "HighEntropy" not in p["name"]]
        _SETTINGS = {"plugins_used": plugins}
    return _SETTINGS


_SCAN_CACHE: dict[str, tuple[str, ...]] = {}
_SCAN_CACHE_SIZE = 50_000


def _scan_lines(lines: list[str]) -> dict[str, tuple[str, ...]]:
    """Secret values detect-secrets finds in each of ``lines`` (its default plugins without
    entropy scanning), by line. One settings context for the batch (entering detect-secrets'
    ``transient_settings`` costs far more than scanning a line), and a bounded cache: logs
    repeat the same lines (a command quoted as config and as evidence)."""
    todo = [line for line in dict.fromkeys(lines) if line not in _SCAN_CACHE]
    if todo:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import transient_settings

        if len(_SCAN_CACHE) + len(todo) > _SCAN_CACHE_SIZE:
            _SCAN_CACHE.clear()
        with transient_settings(_detect_secrets_settings()):
            for line in todo:
                _SCAN_CACHE[line] = tuple(s.secret_value for s in scan_line(line) if s.secret_value)
    return {line: _SCAN_CACHE.get(line, ()) for line in lines}


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """Redact one text with a fresh :class:`Redactor`; return the text and the counts by kind."""
    redactor = Redactor()
    return redactor.redact(text), redactor.counts
