"""Helpers for import tests: small Claude Code transcripts built in code."""

from __future__ import annotations

import json
from pathlib import Path


def claude_log(path: Path, steps: list[tuple], session: str = "s-1", day: str = "2026-03-01") -> Path:
    """Write a Claude Code JSONL transcript at ``path``. ``steps`` are ``("say", text)``,
    ``("user", text)`` or ``("run", command, output[, is_error])``; each gets its own line(s),
    uuids ``u1``, ``u2``, ... and timestamps a second apart. Returns ``path``."""
    lines = []
    n = 0

    def stamp() -> str:
        return f"{day}T10:{n // 60:02d}:{n % 60:02d}Z"

    for step in steps:
        n += 1
        base = {"uuid": f"u{n}", "sessionId": session, "timestamp": stamp(), "cwd": "/srv/work", "version": "2.1.14"}
        if step[0] in ("say", "user"):
            role = "assistant" if step[0] == "say" else "user"
            content = [{"type": "text", "text": step[1]}] if role == "assistant" else step[1]
            lines.append({**base, "type": role, "message": {"id": f"m{n}", "role": role, "content": content}})
            continue
        _, command, output, *rest = step
        is_error = bool(rest and rest[0])
        call = f"t{n}"
        lines.append({**base, "type": "assistant", "message": {"id": f"m{n}", "role": "assistant", "content": [
            {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}]}})
        n += 1
        lines.append({"uuid": f"u{n}", "sessionId": session, "timestamp": stamp(), "type": "user",
                      "message": {"role": "user", "content": [
                          {"type": "tool_result", "tool_use_id": call, "content": output, "is_error": is_error}]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
