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
``private-key``    ``<secret>``    a PEM/OpenSSH/PGP private key block, BEGIN to END (its body
                                   too; to the end of the text when the END line is missing)
``token``          ``<secret>``    Hugging Face (``hf_...``), GitHub, OpenAI/Anthropic
                                   (``sk-...``), Slack, AWS, GitLab, npm tokens;
                                   ``Authorization: Bearer ...``
``env-secret``     ``NAME=<secret>``  ``KEY=value`` where NAME says token/secret/password/key, and
                                   ``name: value`` / ``name = value`` / ``"name": "value"``
                                   where the name's words say so (:func:`secret_key_name`),
                                   whatever the value's shape
``cli-secret``     ``--flag <secret>``  ``--api-key X``, ``--token X``, ``--password X``, ...
``secret``         ``<secret>``    anything detect-secrets' plugins find (its default plugin
                                   set without the two high-entropy scanners, which flag most
                                   words of a log when run line by line)
``aws-secret``     ``<secret>``    a bare 40-character string of the base64 alphabet with upper-
                                   and lower-case letters and digits and the entropy of a random
                                   key (an AWS secret access key's shape); never hex-only (git
                                   SHAs, SHA-1 digests)
``secret``         ``<secret>``    also: a high-entropy base64 string on a line that names a
                                   secret (token, secret, password, key, credential), by the
                                   entropy limit of detect-secrets' ``Base64HighEntropyString``
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
    r"(?<![/\w.-])[A-Za-z_][A-Za-z0-9_.-]*@(?:\d{1,3}(?:\.\d{1,3}){3}\b|[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*\.[A-Za-z][A-Za-z0-9-]*\b"
    r"|[A-Za-z0-9][A-Za-z0-9-]*(?=:))")
"""``user@host``: the host an IP address, a dotted name, or a name followed by ``:`` (a shell
prompt, an scp target). Not ``owner/repo@<sha>`` (a repository at a commit: preceded by ``/``)
nor ``name@word`` in other text (``pp512@d4096``, ``metric@dimension``), nor ``name@number``
(guidellm's ``asynchronous@8.00 req/sec``: a dotted name ends in a label that starts with a letter)."""
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
_KEY_BLOCK = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY((?: BLOCK)?)-----.*?(?:-----END \1PRIVATE KEY\2-----|\Z)", re.S)
"""A private key block as PEM (RFC 7468: ``RSA``, ``EC``, ``ENCRYPTED`` or no label), OpenSSH
and PGP (``PRIVATE KEY BLOCK``) write it: BEGIN line, base64 body, END line."""
_KEY_BEGIN = re.compile(r"BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
"""The shape of an AWS secret access key: 40 characters of the base64 alphabet (AWS IAM user
guide, "Managing access keys"), filtered by :func:`_random_looking`."""
_SECRET_WORD = re.compile(r"(?i)(?<![a-z])(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|"
                          r"credentials?|auth)(?![a-rt-z])")
"""A line that names a secret: where detect-secrets' entropy scanner is run."""
_KEY_VALUE = re.compile(
    r"""(?P<pre>(?:^|[{,\[(])[ \t]*(?:-[ \t]+)?)(?P<q>["']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=q)"""
    r"""(?P<sep>[ \t]*[:=][ \t]*)(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s,;'"}\])]+)""", re.M)
"""``name: value``, ``name = value``, ``"name": "value"`` where a key stands: at the start of a
line (indented or as a list item, YAML, TOML, INI) or after ``{``, ``,``, ``[``, ``(`` (JSON,
Python), never across a line break nor in the middle of a sentence (``wrote leak-secret: fill``)."""
_BEARER = re.compile(r"(?i)\b(bearer|token)\s+([A-Za-z0-9._~+/-]{12,}=*)")
_SECRET_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:TOKEN(?!S)|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|ACCESS_KEY|PRIVATE_KEY|_KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*"
_ENV_SECRET = re.compile(r"\b(" + _SECRET_NAME + r")=(\"[^\"]*\"|'[^']*'|[^\s'\"]+)", re.IGNORECASE)


def secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``HF_TOKEN``,
    ``OPENAI_API_KEY``, ``DB_PASSWORD``): its value is never kept."""
    return re.fullmatch(_SECRET_NAME, name, re.IGNORECASE) is not None or secret_key_name(name)


_SECRET_PARTS = frozenset({"token", "secret", "password", "passwd", "pwd", "apikey", "credential", "credentials",
                           "passphrase", "secretkey", "accesskey", "privatekey"})
_KEY_QUALIFIERS = frozenset({"api", "access", "private", "secret", "signing", "encryption", "master", "client",
                             "service", "account", "session"})


def secret_key_name(name: str) -> bool:
    """Whether a key's words say its value is a secret, whatever the spelling
    (``AWS_SECRET_ACCESS_KEY``, ``db-password``, ``wandb.api_key``, ``clientSecret``): a word
    ``token``, ``secret``, ``password``, ``credentials``, ..., or ``key`` after ``api``, ``access``,
    ``private``, ... (``token`` only as the last word). Not ``max_tokens``, ``tokenizer``,
    ``input_token_throughput``, ``num_key_value_heads``, ``key_dim``.

    >>> [secret_key_name(n) for n in ("WANDB_API_KEY", "clientSecret", "HF_TOKEN", "max_tokens", "tokenizer",
    ...                               "input_token_throughput", "kv_key_dim")]
    [True, True, True, False, False, False, False]
    """
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    parts = [p for p in re.split(r"[_.\-\s]+", spaced.lower()) if p]
    for i, part in enumerate(parts):
        if part == "token" and i < len(parts) - 1:
            continue  # input_token_throughput, token_budget: a count of tokens, not a credential
        if part in _SECRET_PARTS:
            return True
        if part in ("key", "keys") and i > 0 and parts[i - 1] in _KEY_QUALIFIERS:
            return True
    return False


def _random_looking(text: str) -> bool:
    """Whether a 40-character base64-alphabet string looks like a random key: upper- and
    lower-case letters and a digit, not hex-only, no path-like ``//``, and a Shannon entropy of
    at least 4.3 bits per character (a random base64 string of 40 has about 5; English words
    joined, or a path, far less)."""
    import math

    if not (re.search(r"[A-Z]", text) and re.search(r"[a-z]", text) and re.search(r"\d", text)):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+", text) or "//" in text or text.startswith("/") or text.endswith("/"):
        return False
    counts = Counter(text)
    entropy = -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())
    return entropy >= 4.3
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
    that list (e.g. from ``Session.cwd``'s home path: use :meth:`learn`). ``personal=False``
    keeps personal details (kinds ``email``, ``host``, ``home-user``, ``private-ip``) and replaces
    secrets only: the policy for a team's own documents (README, "Redaction").
    """

    def __init__(self, names: Iterable[str] = (), *, personal: bool = True) -> None:
        self.counts: Counter[str] = Counter()
        self.names: set[str] = set()
        self.hosts: set[str] = set()
        self.personal = personal
        """Whether personal details are replaced too (session logs, machine captures); without
        it only secrets are (a team's own documents: an ADR log, a decision, a migrated record)."""
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
        """``text`` with every secret and personal detail replaced (see the module table); with
        ``personal=False``, every secret only."""
        if not text:
            return text
        text = self._sub(_KEY_BLOCK, text, "private-key",
                         lambda m: f"-----BEGIN {m.group(1)}PRIVATE KEY{m.group(2)}-----\n{SECRET}\n"
                                   f"-----END {m.group(1)}PRIVATE KEY{m.group(2)}-----",
                         keep=lambda m: m.group(0).split("\n")[1:2] == [SECRET])
        if not self.personal:
            return self._secrets(_URL_CREDENTIALS.sub(lambda m: self._count("url-password", f"{m.group(1)}{m.group(2)}:{SECRET}@")
                                                      if m.group(3) != SECRET else m.group(0), text))
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
        text = self._secrets(text)
        text = self._sub(_IPV4, text, "private-ip", lambda m: HOST, keep=lambda m: not _is_private(m.group(1)))
        for name in sorted(self.names, key=len, reverse=True):
            text = self._sub(_name_pattern(name), text, "home-user", lambda m: USER)
        for host in sorted(self.hosts, key=len, reverse=True):
            text = self._sub(_host_pattern(host), text, "host", lambda m: HOST)
        return text

    def redact_value(self, key: str, text: str) -> str:
        """The value ``text`` of a mapping's ``key`` (an env variable, a setting, a flag) with
        secrets replaced: all of it when the key's name says it holds a secret
        (:func:`secret_key_name`, :func:`secret_name`), whatever its shape, unless it is
        harmless (empty, a placeholder, ``$VAR``, a small number, a boolean); else :meth:`redact`."""
        if key and (secret_key_name(key) or secret_name(key)) and not _harmless(text) and SECRET not in text:
            self.counts["env-secret"] += 1
            return SECRET
        return self.redact(text)

    def _count(self, kind: str, replacement: str) -> str:
        self.counts[kind] += 1
        return replacement

    def _secrets(self, text: str) -> str:
        """``text`` with the secrets replaced (every kind of the module table that is a secret)."""
        text = self._sub(_TOKENS, text, "token", lambda m: SECRET)
        text = self._sub(_BEARER, text, "token", lambda m: f"{m.group(1)} {SECRET}",
                         keep=lambda m: m.group(2) == SECRET.strip("<>") or not re.search(r"\d", m.group(2)))
        text = self._sub(_ENV_SECRET, text, "env-secret", lambda m: f"{m.group(1)}={SECRET}",
                         keep=lambda m: m.group(2) in (SECRET, "") or m.group(2).startswith("$")
                         or bool(re.fullmatch(r"\d{1,5}|true|false|none|null", m.group(2), re.I)))
        text = self._sub(_CLI_SECRET, text, "cli-secret", lambda m: f"{m.group(1)}{m.group(2)}{SECRET}",
                         keep=lambda m: m.group(3) == SECRET or m.group(3).startswith("$"))
        text = self._sub(_KEY_VALUE, text, "env-secret",
                         lambda m: f"{m.group('pre')}{m.group('q')}{m.group('name')}{m.group('q')}{m.group('sep')}"
                                   f"{_quoted(m.group('value'))}",
                         keep=lambda m: not secret_key_name(m.group("name")) or _harmless(m.group("value")))
        text = self._detect_secrets(text)
        text = self._sub(_AWS_SECRET, text, "aws-secret", lambda m: SECRET, keep=lambda m: not _random_looking(m.group(0)))
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
        for line in lines:
            if len(line) <= 4000 and _SECRET_WORD.search(line):
                extra = [m.group(0) for m in _LONG_TOKEN.finditer(line) if _high_entropy(m.group(0))]
                if extra:
                    found[line] = tuple(dict.fromkeys((*found.get(line, ()), *extra)))
        for i, line in enumerate(lines):
            for value in found.get(line, ()):
                if not value or "<" in value or value == SECRET.strip("<>") or _KEY_BEGIN.fullmatch(value):
                    continue  # a key block's BEGIN line stays: its body is already replaced
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
    """detect-secrets' default plugins without its two high-entropy scanners (they flag most
    words of a log read line by line; kb applies its own entropy rule, only on lines that name a
    secret: :func:`_high_entropy`)."""
    global _SETTINGS
    if _SETTINGS is None:
        from detect_secrets.settings import default_settings

        with default_settings() as settings:
            plugins = [p for p in settings.json()["plugins_used"] if "HighEntropy" not in p["name"]]
        _SETTINGS = {"plugins_used": plugins}
    return _SETTINGS


_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")


def _high_entropy(token: str) -> bool:
    """Whether ``token`` (20 or more characters of the base64 or base64url alphabet) is random
    enough to be a key: letters of both cases and a digit, not hex-only (digests, git SHAs), no
    path-like ``/`` runs, and a Shannon entropy of at least 4.5 bits per character, the limit
    detect-secrets' ``Base64HighEntropyString`` uses by default."""
    import math

    if re.fullmatch(r"[0-9a-fA-F]+", token) or "//" in token or token.count("/") > 3:
        return False
    if not (re.search(r"[A-Z]", token) and re.search(r"[a-z]", token) and re.search(r"\d", token)):
        return False
    counts = Counter(token)
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= (4.5 if len(token) >= 32 else 4.0)


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


def _harmless(value: str) -> bool:
    """A value under a secret-named key that is no secret: empty, a placeholder, a variable
    reference, a small number, a boolean or null."""
    bare = value.strip("'\"")
    return (bare in ("", SECRET) or bare.startswith(("$", "<", "${", "%(")) or bool(
        re.fullmatch(r"\d{1,5}|true|false|yes|no|none|null|~", bare, re.I)))


def _quoted(value: str) -> str:
    """:data:`SECRET` in the quotes ``value`` was written in."""
    return f"{value[0]}{SECRET}{value[0]}" if value[:1] in ("'", '"') else SECRET


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """Redact one text with a fresh :class:`Redactor`; return the text and the counts by kind."""
    redactor = Redactor()
    return redactor.redact(text), redactor.counts


def redact_secrets(text: str) -> str:
    """``text`` with its secrets replaced and its personal details kept (``Redactor(personal=False)``):
    for what kb prints, and a team's own documents."""
    return Redactor(personal=False).redact(text)
