"""Step 1 of import: every session-log format of FORMATS.md read into one event model.

Fixtures are under tests/fixtures/logs/: the two shared samples (claude-campaign.jsonl,
notebook.md; expected values in shared/samples/EXPECTED.md) and one small hand-written file
per other format telling parts of the same campaign.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from kb.importers import (
    Locator,
    LogFormatError,
    ReadWarning,
    detect_format,
    read_session,
)

LOGS = Path(__file__).parent / "fixtures" / "logs"


def kinds(session):
    return Counter(e.kind for e in session.events)


def by_line(session, line):
    return [e for e in session.events if e.locator.line == line]


# --- Claude Code -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def claude():
    return read_session(LOGS / "claude-campaign.jsonl")


def test_claude_session_fields_and_counts(claude):
    assert claude.format == "claude"
    assert claude.session_id == "7d1c2a9e-4b3f-4e55-9a51-0c2f1e6b8a10"
    assert claude.tool_version == "2.1.14"
    assert claude.cwd == "/home/alex/work/kimi-serving"
    assert claude.sha256 == hashlib.sha256((LOGS / "claude-campaign.jsonl").read_bytes()).hexdigest()
    assert kinds(claude) == {"text": 8, "tool_call": 7, "tool_result": 7}
    assert [e.index for e in claude.events] == list(range(22))


def test_claude_summary_line_is_context_not_evidence(claude):
    assert by_line(claude, 1) == []
    assert claude.meta["summaries"] == ["Blackwell EAGLE-3 verify cost investigation"]


def test_claude_split_reply_is_one_turn(claude):
    line3, line4 = by_line(claude, 3), by_line(claude, 4)
    assert [(e.kind, e.role) for e in line3 + line4] == [("text", "assistant"), ("tool_call", "assistant")]
    assert line3[0].turn == line4[0].turn
    assert line3[0].locator.message_id == line4[0].locator.message_id == "msg_01A"
    assert (line3[0].locator.uuid, line4[0].locator.uuid) == ("u-0002", "u-0003")
    turn = next(group for group in claude.turns() if line3[0] in group)
    assert [str(e.locator) for e in turn] == ["claude-campaign.jsonl:3", "claude-campaign.jsonl:4"]
    assert len(claude.turns()) == 17  # 18 message lines (2-19), lines 3 and 4 merged


def test_claude_tool_call_paired_with_error_result(claude):
    (call,) = [e for e in by_line(claude, 8) if e.kind == "tool_call"]
    result = claude.result_for(call)
    assert str(call.locator) == "claude-campaign.jsonl:8"
    assert str(result.locator) == "claude-campaign.jsonl:9"
    assert (call.call_id, result.call_id, result.result_of) == ("toolu_03", "toolu_03", call.index)
    assert claude.call_for(result) is call
    assert call.tool_name == "Bash" and result.tool_name == "Bash"
    assert "--enable-torch-symm-mem --cuda-graph-max-bs 128" in call.tool_input["command"]
    assert result.is_error is True
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines()[-3] == "KeyError: 12"
    assert result.text.endswith("KeyError: 12\n\nExit code 1")


def test_claude_every_call_has_its_result(claude):
    pairs = list(claude.tool_pairs())
    assert [(c.locator.line, r.locator.line) for c, r in pairs] == [
        (4, 5), (6, 7), (8, 9), (10, 11), (13, 14), (15, 16), (17, 18)
    ]
    assert [r.is_error for _, r in pairs] == [False, False, True, False, False, False, False]
    assert "Output token throughput (tok/s):         89.52" in pairs[3][1].stdout


def test_claude_truncated_last_line_warns_and_keeps_the_rest(claude):
    assert len(claude.warnings) == 1
    warning = claude.warnings[0]
    assert (warning.file, warning.line) == ("claude-campaign.jsonl", 20)
    assert str(warning).startswith("claude-campaign.jsonl:20: not valid JSON (Unterminated string")
    assert by_line(claude, 20) == []
    assert str(claude.events[-1].locator) == "claude-campaign.jsonl:19"
    assert claude.events[-1].text.startswith("EAGLE-3 is now at 96.1 tok/s")


def test_claude_timestamps_are_aware(claude):
    assert claude.events[0].timestamp == datetime(2026, 2, 26, 9, 14, 2, 118000, tzinfo=timezone.utc)


def _claude_line(uuid, ts, kind, content, msg_id=None):
    message = {"role": kind, "content": content}
    if msg_id:
        message["id"] = msg_id
    return json.dumps({"type": kind, "uuid": uuid, "sessionId": "s-1", "timestamp": ts,
                       "cwd": "/srv/x", "version": "2.0.0", "message": message})


def test_claude_out_of_order_lines_sorted_with_locators_kept(tmp_path):
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join([
        _claude_line("a", "2026-02-26T10:00:05Z", "user", "second"),
        _claude_line("b", "2026-02-26T10:00:01Z", "user", "first"),
        _claude_line("c", "2026-02-26T10:00:09Z", "user", "third"),
    ]) + "\n")
    session = read_session(log)
    assert [(e.text, e.locator.line) for e in session.events] == [("first", 2), ("second", 1), ("third", 3)]
    assert [str(w) for w in session.warnings] == ["session.jsonl: lines not in time order; events sorted by timestamp"]


def test_claude_repeated_block_dropped_and_unknown_type_warned_once(tmp_path):
    log = tmp_path / "session.jsonl"
    block = {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "nvidia-smi"}}
    log.write_text("\n".join([
        _claude_line("a", "2026-02-26T10:00:00Z", "assistant", [block], msg_id="msg_X"),
        _claude_line("b", "2026-02-26T10:00:00Z", "assistant",
                     [block, {"type": "text", "text": "checking"}], msg_id="msg_X"),
        json.dumps({"type": "x-new-kind", "uuid": "n1"}),
        json.dumps({"type": "x-new-kind", "uuid": "n2"}),
        json.dumps({"type": "file-history-snapshot", "messageId": "m"}),
    ]) + "\n")
    session = read_session(log, format="claude")
    assert [(e.kind, e.locator.line) for e in session.events] == [("tool_call", 1), ("text", 2)]
    assert [str(w) for w in session.warnings] == [
        "session.jsonl:3: unknown record type 'x-new-kind' skipped (first seen here)"
    ]


# --- Codex CLI ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def codex():
    return read_session(LOGS / "codex-rollout.jsonl")


def test_codex_session_fields_and_counts(codex):
    assert codex.format == "codex"
    assert codex.session_id == "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    assert codex.tool_version == "0.104.0"
    assert codex.cwd == "/srv/kimi-serving"
    assert codex.meta["model"] == "gpt-5-codex"
    assert codex.meta["git"]["branch"] == "sm120-allreduce"
    assert kinds(codex) == {"text": 4, "thinking": 1, "tool_call": 3, "tool_result": 2}
    assert [e.locator.line for e in codex.events] == [3, 4, 5, 6, 8, 9, 10, 11, 13, 18]


def test_codex_pairs_calls_and_outputs_by_call_id(codex):
    pairs = {c.call_id: (c, r) for c, r in codex.tool_pairs()}
    call, result = pairs["call_base01"]
    assert (call.locator.line, result.locator.line) == (6, 8)
    assert call.tool_input["command"][2].startswith("python -m sglang.bench_serving")
    assert call.tool_input["workdir"] == "/srv/sglang"
    assert result.text.splitlines()[1] == "Output token throughput (tok/s):         89.52"
    assert (result.exit_code, result.is_error) == (0, False)
    assert result.stdout == "Output token throughput (tok/s):         89.52\n"  # from exec_command_end
    call, result = pairs["call_symm02"]
    assert (call.locator.line, result.locator.line) == (10, 11)
    assert (result.exit_code, result.is_error) == (1, True)
    assert "KeyError: 12" in result.text
    call, result = pairs["call_bad03"]
    assert result is None
    assert call.tool_input == '{"command": ["bash", "-lc", "nvidia-smi'


def test_codex_warnings(codex):
    assert [str(w) for w in codex.warnings] == [
        "codex-rollout.jsonl:13: function_call arguments are not valid JSON "
        "(Unterminated string starting at); kept as text",
        "codex-rollout.jsonl:14: unknown record type 'x_future_record' skipped (first seen here)",
        "codex-rollout.jsonl:17: not valid JSON (Unterminated string starting at, column 107); line skipped",
    ]


def test_codex_injected_context_is_not_the_users_words(codex):
    first, second = codex.events[:2]
    assert (first.role, first.text.startswith("<environment_context>")) == ("system", True)
    assert (second.role, second.text[:23]) == ("user", "Re-measure the baseline")


def test_codex_zst_reads_like_the_plain_file(codex):
    packed = read_session(LOGS / "codex-rollout.jsonl.zst")
    assert packed.format == "codex"
    assert [(e.kind, e.text, e.locator.line, e.call_id) for e in packed.events] == [
        (e.kind, e.text, e.locator.line, e.call_id) for e in codex.events
    ]
    assert str(packed.events[7].locator) == "codex-rollout.jsonl.zst:11"
    # the sha256 is of the log's content, so the compressed copy is recognised as the same log
    assert packed.sha256 == codex.sha256 == hashlib.sha256((LOGS / "codex-rollout.jsonl").read_bytes()).hexdigest()


def test_codex_zst_without_zstandard_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(LogFormatError) as caught:
        read_session(LOGS / "codex-rollout.jsonl.zst")
    assert str(caught.value) == (
        "codex-rollout.jsonl.zst: reading .zst files needs the 'zstandard' package: pip install zstandard"
    )


# --- opencode ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def opencode():
    return read_session(LOGS / "opencode-export.json")


def test_opencode_session_fields_and_counts(opencode):
    assert opencode.format == "opencode"
    assert (opencode.session_id, opencode.tool_version, opencode.cwd) == (
        "ses_3f1a2b3c4d5e", "1.0.150", "/srv/kimi-serving")
    assert opencode.meta["title"] == "Upgrade to CUDA 13 and verify the stack"
    assert kinds(opencode) == {"text": 3, "thinking": 1, "tool_call": 3, "tool_result": 2, "error": 1}
    assert [str(w) for w in opencode.warnings] == [
        "opencode-export.json: unknown part type 'x-future-part' skipped "
        "(first seen at opencode-export.json#msg_a1/prt_a1x)"
    ]


def test_opencode_tool_parts(opencode):
    pairs = list(opencode.tool_pairs())
    assert [c.call_id for c, _ in pairs] == ["toolu_oc_01", "toolu_oc_02", "toolu_oc_03"]
    (ok_call, ok), (bad_call, bad), (running, none) = pairs
    assert str(ok.locator) == "opencode-export.json#msg_a1/prt_a1b"
    assert ok.text == "Build cuda_13.0.r13.0/compiler.36424714_0\n2.11.0.dev20260220+cu130 13.0 0.6.9\n"
    assert (ok.exit_code, ok.is_error) == (0, False)
    assert ok_call.timestamp == datetime(2026, 2, 27, 13, 46, 44, tzinfo=timezone.utc)
    assert bad.is_error is True
    assert bad.text.startswith("ImportError: libcudart.so.12")
    assert bad_call.tool_input == {"command": "python -c 'import sgl_kernel'"}
    assert (running.attrs["status"], none) == ("running", None)


def test_opencode_message_error(opencode):
    (error,) = [e for e in opencode.events if e.kind == "error"]
    assert (str(error.locator), error.text, error.is_error) == (
        "opencode-export.json#msg_a2", "Overloaded: retry later", True)


# --- Gemini CLI --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gemini():
    return read_session(LOGS / "gemini-session.jsonl")


def test_gemini_rewind_drops_the_message_and_all_after(gemini):
    ids = list(dict.fromkeys(e.locator.message_id for e in gemini.events))
    assert ids == ["u1", "g1", "u2", "g2", "i1", "e1", "g4"]
    assert not any("NCCL_ALGO=Ring" in e.text or "other box" in e.text for e in gemini.events)
    assert kinds(gemini) == {"text": 6, "tool_call": 2, "tool_result": 2, "error": 1, "thinking": 1}


def test_gemini_repeated_id_replaces_the_message(gemini):
    g1 = [e for e in gemini.events if e.locator.message_id == "g1"]
    assert [(e.kind, e.locator.line) for e in g1] == [("text", 4), ("tool_call", 4), ("tool_result", 4)]
    call, result = g1[1], g1[2]
    assert call.attrs["status"] == "success"
    assert result.result_of == call.index
    assert "CUDA Version: 13.1" in result.text
    assert (result.exit_code, result.is_error) == (0, False)


def test_gemini_error_status_and_exit_code(gemini):
    (call,) = [e for e in gemini.events if e.call_id == "run_shell_command-2" and e.kind == "tool_call"]
    result = gemini.result_for(call)
    assert (result.is_error, result.exit_code) == (True, 1)
    assert "Output: KeyError: 12" in result.text


def test_gemini_set_and_unknown_rewind(gemini):
    assert gemini.session_id == "5b0e7c2a-1d3f-4e6a-9b8c-7d6e5f4a3b2c"
    assert gemini.meta["summary"] == "sm120 allreduce failures"
    assert gemini.meta["lastUpdated"] == "2026-02-25T11:06:00.000Z"
    assert [str(w) for w in gemini.warnings] == ["gemini-session.jsonl:13: $rewindTo 'g9': no such message; ignored"]
    assert gemini.events[-2].kind == "thinking"
    assert gemini.events[-2].text == "Weighing the upgrade: Every allreduce fix failed on arch detection."


def test_gemini_checkpoint_set_replaces_messages(tmp_path):
    log = tmp_path / "session-x.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in [
        {"sessionId": "s", "projectHash": "p"},
        {"id": "a", "type": "user", "content": "old"},
        {"$set": {"messages": [{"id": "b", "type": "user", "content": "kept"}]}},
        {"id": "c", "type": "gemini", "content": "after"},
    ]) + "\n")
    session = read_session(log)
    assert [(e.text, e.locator.line) for e in session.events] == [("kept", 3), ("after", 4)]


def test_gemini_legacy_single_document():
    session = read_session(LOGS / "gemini-session-legacy.json")
    assert (session.format, session.session_id) == ("gemini", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
    assert [str(e.locator) for e in session.events] == [
        "gemini-session-legacy.json#m1", "gemini-session-legacy.json#m2",
        "gemini-session-legacy.json#m2/bench-1", "gemini-session-legacy.json#m2/bench-1",
    ]
    ((call, result),) = session.tool_pairs()
    assert (call.tool_input, result.text) == (
        {"command": "python -m sglang.bench_serving --port 30000"}, "Output token throughput (tok/s): 54.10")


# --- Aider -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def aider():
    return read_session(LOGS / "campaign.aider.chat.history.md")


def test_aider_runs_and_blocks(aider):
    assert aider.format == "aider"
    assert kinds(aider) == {"heading": 2, "text": 6, "tool_call": 2, "tool_result": 5}
    headings = [e for e in aider.events if e.kind == "heading"]
    assert [h.timestamp for h in headings] == [datetime(2026, 2, 21, 10, 2, 11), datetime(2026, 2, 26, 14, 30)]
    users = [e for e in aider.events if e.role == "user" and e.kind == "text"]
    assert [str(e.locator) for e in users] == [
        "campaign.aider.chat.history.md:7-8", "campaign.aider.chat.history.md:25",
        "campaign.aider.chat.history.md:33",
    ]
    assert users[0].text == "Add EAGLE-3 speculation to launch.sh:\n--speculative-algorithm EAGLE3 with the trained drafter."
    reply = aider.events[3]
    assert (reply.role, str(reply.locator)) == ("assistant", "campaign.aider.chat.history.md:10-20")
    assert "#### this line is inside a fence, not user input" in reply.text
    assert users[2].section == "aider chat started at 2026-02-26 14:30:00"


def test_aider_run_command_paired_with_its_output(aider):
    (run, running) = list(aider.tool_pairs())
    call, result = run
    assert call.tool_input == {"command": "python -m sglang.bench_serving --port 30000 --num-prompts 64"}
    assert str(result.locator) == "campaign.aider.chat.history.md:27-29"
    assert result.text.splitlines()[0] == "Output token throughput (tok/s):         54.10"
    call, result = running
    assert (str(call.locator), call.tool_input) == (
        "campaign.aider.chat.history.md:43", {"command": "nvidia-smi | head -4"})
    assert str(result.locator) == "campaign.aider.chat.history.md:44-45"
    assert "CUDA Version: 13.1" in result.text


# --- SpecStory ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def specstory():
    return read_session(LOGS / "specstory-cuda13-verify.md")


def test_specstory_turns_and_tools(specstory):
    assert specstory.format == "specstory"
    assert specstory.session_id == "8e2d4c6a-0b1f-4a3e-9d5c-7f6e8a9b0c1d"
    assert specstory.meta["specstory_version"] == "2.1.0"
    assert kinds(specstory) == {"text": 4, "tool_call": 2, "tool_result": 2, "thinking": 1}
    assert [e.role for e in specstory.events if e.kind == "text"] == ["user", "assistant", "assistant", "user"]
    first = specstory.events[1]
    assert first.attrs["model"] == "claude-opus-4-5"
    assert first.timestamp == datetime(2026, 2, 27, 17, 38, 9, tzinfo=timezone.utc)
    (bench, bench_out), (symm, symm_out) = specstory.tool_pairs()
    assert bench.tool_name == "Bash"
    assert bench.tool_input == {
        "command": "python -m sglang.bench_serving --backend sglang --port 30000 --num-prompts 64",
        "description": "EAGLE-3 throughput on CUDA 13",
    }
    assert str(bench_out.locator) == "specstory-cuda13-verify.md:19-31"
    assert "Output token throughput (tok/s):         96.10" in bench_out.text
    assert symm.tool_input["command"] == "python -m sglang.launch_server --tp 8 --enable-torch-symm-mem"
    assert (symm_out.text, symm_out.exit_code, symm_out.is_error) == ("KeyError: 12\nExit code 1", 1, True)


def test_specstory_fence_hides_turn_headers(specstory):
    last_reply = specstory.events[7]
    assert str(last_reply.locator) == "specstory-cuda13-verify.md:55-59"
    assert "_**User**_ inside a fence is not a turn header" in last_reply.text


# --- Markdown notebooks ------------------------------------------------------------------


@pytest.fixture(scope="module")
def notebook():
    return read_session(LOGS / "notebook.md")


def test_notebook_headings_span_their_sections(notebook):
    headings = [e for e in notebook.events if e.kind == "heading"]
    assert [(str(h.locator), h.level) for h in headings] == [
        ("notebook.md:1-50", 1), ("notebook.md:7-17", 2), ("notebook.md:19-23", 2),
        ("notebook.md:25-36", 2), ("notebook.md:38-42", 2), ("notebook.md:44-50", 2),
    ]
    assert headings[4].text == "2026-02-26 — Decision"
    assert headings[4].timestamp == datetime(2026, 2, 26)
    assert headings[0].timestamp is None
    assert kinds(notebook) == {"heading": 6, "text": 7, "table": 3}


def test_notebook_tables_rows_with_lines(notebook):
    tables = [e for e in notebook.events if e.kind == "table"]
    assert [str(t.locator) for t in tables] == ["notebook.md:12-15", "notebook.md:27-33", "notebook.md:46-48"]
    experiments = tables[1]
    assert experiments.section == "2026-02-23 — allreduce experiments"
    assert experiments.table.headers == ["Approach", "Outcome", "Output tok/s", "Error / cause"]
    assert [r.line for r in experiments.table.rows] == [29, 30, 31, 32, 33]
    assert experiments.table.rows[2].cells == {
        "Approach": "Torch symmetric memory", "Outcome": "failed",
        "Output tok/s": "—", "Error / cause": "`KeyError: 12`",
    }
    assert experiments.table.rows[1].cells["Output tok/s"] == "38"
    assert tables[0].table.rows[1].cells == {
        "Config": "tp8, cuda-graph-max-bs 128", "Output tok/s": "89.5", "vs baseline": "+9.1%"}
    assert tables[2].table.rows[0].cells == {"Config": "EAGLE-3, CUDA 13 stack", "Output tok/s": "96.1"}


def test_notebook_paragraphs_carry_their_section(notebook):
    decision = [e for e in notebook.events if e.kind == "text" and e.section == "2026-02-26 — Decision"]
    assert [str(e.locator) for e in decision] == ["notebook.md:40-42"]
    assert decision[0].text.startswith("Upgrade the software stack to CUDA 13")


def test_markdown_list_items_and_code(tmp_path):
    plan = tmp_path / "plan.md"
    plan.write_text(
        "# Plan\n\n## 2026-03-01 — next steps\n\n"
        "- Retest custom allreduce\n  on CUDA 13\n  - with NCCL_PROTO=LL\n- Train the drafter longer\n\n"
        "```bash\nexport NCCL_ALGO=Tree\n```\n"
    )
    session = read_session(plan)
    assert session.format == "markdown"
    items = [e for e in session.events if e.kind == "list_item"]
    assert [(e.text, str(e.locator)) for e in items] == [
        ("Retest custom allreduce\non CUDA 13", "plan.md:5-7"),
        ("with NCCL_PROTO=LL", "plan.md:7"),
        ("Train the drafter longer", "plan.md:8"),
    ]
    assert {e.section for e in items} == {"2026-03-01 — next steps"}
    (code,) = [e for e in session.events if e.kind == "code"]
    assert (code.text, code.attrs, str(code.locator)) == ("export NCCL_ALGO=Tree\n", {"language": "bash", "fenced": True},
                                                         "plan.md:10-12")
    assert not any(e.kind == "text" for e in session.events)


# --- Detection, bad input, printing ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("claude-campaign.jsonl", "claude"),
        ("codex-rollout.jsonl", "codex"),
        ("codex-rollout.jsonl.zst", "codex"),
        ("opencode-export.json", "opencode"),
        ("gemini-session.jsonl", "gemini"),
        ("gemini-session-legacy.json", "gemini"),
        ("campaign.aider.chat.history.md", "aider"),
        ("specstory-cuda13-verify.md", "specstory"),
        ("notebook.md", "markdown"),
    ],
)
def test_detect_format(name, expected):
    head = (LOGS / name).read_bytes()[:65536]
    assert detect_format(LOGS / name, head) == expected


def test_detect_format_by_content_not_name(tmp_path):
    aider_copy = tmp_path / "history.txt"
    aider_copy.write_bytes((LOGS / "campaign.aider.chat.history.md").read_bytes())
    assert read_session(aider_copy).format == "aider"


def test_unknown_format_is_an_error(tmp_path):
    blob = tmp_path / "data.bin"
    blob.write_bytes(b"\x00\x01\x02 not a log")
    with pytest.raises(LogFormatError, match=r"^data\.bin: cannot tell the format of this file; force one"):
        read_session(blob)
    with pytest.raises(LogFormatError, match=r"unknown format 'cursor'; choose one of: claude, codex"):
        read_session(LOGS / "notebook.md", format="cursor")


@pytest.mark.parametrize("fmt", ["auto", "claude", "markdown", "opencode", "gemini"])
def test_empty_file_is_an_error(tmp_path, fmt):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n  \n")
    with pytest.raises(LogFormatError) as caught:
        read_session(empty, format=fmt)
    assert str(caught.value) == "empty.jsonl: file is empty; nothing to import"
    assert (caught.value.file, caught.value.line) == ("empty.jsonl", None)


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(LogFormatError, match="no such file"):
        read_session(tmp_path / "gone.jsonl")


def test_non_utf8_bytes_replaced_with_a_warning_naming_the_offset(tmp_path):
    log = tmp_path / "bad.jsonl"
    good = _claude_line("a", "2026-02-26T10:00:00Z", "user", "first").encode()
    bad = _claude_line("b", "2026-02-26T10:00:01Z", "user", "caf\u00e9 X").encode().replace(b"X", b"\xff")
    log.write_bytes(good + b"\n" + bad + b"\n")
    session = read_session(log)
    offset = len(good) + 1 + bad.index(b"\xff")
    assert [str(w) for w in session.warnings] == [
        f"bad.jsonl:2: not valid UTF-8 at byte offset {offset}; bad bytes replaced with U+FFFD"
    ]
    assert [e.text for e in session.events] == ["first", "caf\u00e9 \ufffd"]


def test_a_thousand_bad_lines_do_not_stop_the_read(tmp_path):
    log = tmp_path / "big.jsonl"
    lines = []
    for i in range(2000):
        lines.append("{broken" if i % 2 else _claude_line(f"u{i}", f"2026-02-26T10:{i // 60 % 60:02d}:{i % 60:02d}Z", "user", f"m{i}"))
    log.write_text("\n".join(lines) + "\n")
    session = read_session(log)
    assert len(session.events) == 1000
    assert len(session.warnings) == 1000
    assert str(session.warnings[-1]).startswith("big.jsonl:2000: not valid JSON (")


def test_locator_and_warning_printing():
    assert str(Locator("claude-campaign.jsonl", line=9)) == "claude-campaign.jsonl:9"
    assert str(Locator("notebook.md", line_start=27, line_end=33)) == "notebook.md:27-33"
    assert str(Locator("notebook.md", line_start=17, line_end=17)) == "notebook.md:17"
    assert str(Locator("export.json", message_id="msg_1", part_id="prt_2")) == "export.json#msg_1/prt_2"
    assert str(ReadWarning("a.jsonl", 20, "not valid JSON (x)")) == "a.jsonl:20: not valid JSON (x)"
    assert str(ReadWarning("a.jsonl", None, "lines not in time order")) == "a.jsonl: lines not in time order"
    assert str(LogFormatError("a.md", 3, "boom")) == "a.md:3: boom"


def test_jsonl_is_streamed_not_loaded_whole(tmp_path):
    import tracemalloc

    log = tmp_path / "large.jsonl"
    with log.open("w") as handle:
        for i in range(2000):  # about 10 MB of records no event needs
            handle.write(json.dumps({"type": "x-unknown", "uuid": str(i), "pad": "x" * 5000}) + "\n")
        handle.write(_claude_line("u", "2026-02-26T10:00:00Z", "user", "kept") + "\n")
    tracemalloc.start()
    try:
        session = read_session(log, format="claude")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(e.text, e.locator.line) for e in session.events] == [("kept", 2001)]
    assert peak < 2 * 2**20


# --- bounded memory: text cap, line limit, size limit of formats read whole ---------------


def _big_output_log(path, output):
    call = {"type": "tool_use", "id": "toolu_big", "name": "Bash",
            "input": {"command": "python -m sglang.bench_serving --num-prompts 64"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_big", "content": output}
    lines = [
        _claude_line("a", "2026-02-26T10:00:00Z", "assistant", [call], msg_id="msg_B"),
        json.dumps({"type": "user", "uuid": "b", "sessionId": "s-1", "timestamp": "2026-02-26T10:05:00Z",
                    "message": {"role": "user", "content": [result]},
                    "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False}}),
    ]
    path.write_text("\n".join(lines) + "\n")


def test_a_long_tool_output_keeps_its_head_and_its_tail(tmp_path):
    from kb.importers.formats._common import TEXT_HEAD_CHARS, TEXT_TAIL_CHARS
    from kb.importers.score import score_session as extract

    body = "".join(f"[TP0] Decode batch {i}. gen throughput (token/s): 80.{i % 100:02d}\n" for i in range(90_000))
    tail = ("Output token throughput (tok/s):         91.25\n"
            "Median TTFT (ms):                        1790.55\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered")
    output = "server started\n" + body + tail
    assert len(output) > 5 * 10**6
    log = tmp_path / "big-output.jsonl"
    _big_output_log(log, output)
    session = read_session(log)
    result = session.events[1]
    limit = TEXT_HEAD_CHARS + TEXT_TAIL_CHARS + 100  # the marker line
    for text in (result.text, result.stdout):
        assert len(text) < limit
        assert text.startswith("server started\n[TP0] Decode batch 0.")
        assert text.endswith(tail)
        marker = [line for line in text.splitlines() if "omitted by kb import" in line]
        omitted = int(marker[0].split()[1])
        assert len(text) - len(marker[0]) - 2 + omitted == len(output)  # nothing lost unsaid
    attempt = extract(session).attempts[0]
    assert attempt.metrics["output_throughput"].text == "91.25"
    assert attempt.metrics["median_ttft"].text == "1790.55"


def test_short_texts_are_not_capped():
    from kb.importers.formats._common import cap_text

    assert cap_text("a\n" * 100, head=100, tail=100) == "a\n" * 100
    capped = cap_text("".join(f"{i:04d}\n" for i in range(1000)), head=100, tail=300)
    assert capped.startswith("0000\n") and capped.endswith("0998\n0999\n")
    assert "\n[... " in capped and all(len(line) == 4 for line in capped.splitlines() if "omitted" not in line)


def test_an_overlong_line_is_skipped_not_held(tmp_path, monkeypatch):
    from kb.importers import sessions as readers

    monkeypatch.setattr(readers, "MAX_LINE_BYTES", 4096)
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join([
        _claude_line("a", "2026-02-26T10:00:00Z", "user", "before"),
        _claude_line("b", "2026-02-26T10:00:01Z", "user", "x" * 100_000),
        _claude_line("c", "2026-02-26T10:00:02Z", "user", "after"),
    ]) + "\n")
    session = read_session(log)
    assert [(e.text, e.locator.line) for e in session.events] == [("before", 1), ("after", 3)]
    (warning,) = session.warnings
    assert str(warning).startswith("session.jsonl:2: line of 100")
    assert str(warning).endswith("bytes is over the 4 KiB limit for one line; skipped")


def _oversized(path, head: bytes, size: int):
    path.write_bytes(head + b"Some text.\n" * 8000)  # what format detection reads is text
    with path.open("r+b") as handle:
        handle.truncate(size)  # sparse: no disk used
    return path


@pytest.mark.parametrize(("name", "fmt", "head", "why"), [
    ("plan.md", "markdown", b"# Plan\n\nText.\n", "a Markdown document is parsed whole"),
    ("export.json", "opencode", b'{"info": {"id": "ses_1"}, "messages": []}\n', "an opencode export is one JSON document"),
    ("chat.jsonl", "gemini", b'{"sessionId": "s", "projectHash": "p"}\n', "a Gemini CLI recording is replayed whole"),
    ("x.aider.chat.history.md", "aider", b"# aider chat started at 2026-02-26 10:00:00\n", "Markdown chat history"),
])
def test_formats_read_whole_refuse_files_over_the_limit(tmp_path, name, fmt, head, why):
    from kb.importers.formats._common import MAX_DOCUMENT_BYTES

    log = _oversized(tmp_path / name, head, MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(LogFormatError) as caught:
        read_session(log)
    message = str(caught.value)
    assert message.startswith(f"{name}: file is 64.0 MiB ({MAX_DOCUMENT_BYTES + 1} bytes), "
                              f"over the 64 MiB limit for {fmt} logs: ")
    assert why in message and message.endswith("nothing imported from it")


def test_the_size_limit_also_holds_for_compressed_input(tmp_path, monkeypatch):
    zstandard = pytest.importorskip("zstandard")
    from kb.importers import sessions as readers

    monkeypatch.setattr(readers, "MAX_DOCUMENT_BYTES", 1000)
    packed = tmp_path / "notes.md.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(b"# Notes\n\n" + b"word " * 1000))
    assert packed.stat().st_size < 1000
    with pytest.raises(LogFormatError, match=r"notes.md.zst: file is larger \(decompressed\), over the "
                                             r"1000 bytes limit for markdown logs"):
        read_session(packed, format="markdown")


def test_streamed_formats_have_no_size_limit(tmp_path, monkeypatch):
    from kb.importers import sessions as readers

    monkeypatch.setattr(readers, "MAX_DOCUMENT_BYTES", 1000)
    assert len(read_session(LOGS / "claude-campaign.jsonl").events) == 22
    assert len(read_session(LOGS / "codex-rollout.jsonl.zst").events) == 10


@pytest.mark.parametrize("window", [None, 1])
def test_codex_exec_end_after_its_output_still_fills_the_result(tmp_path, window):
    from kb.importers.sessions import iter_windows

    def line(ts, rtype, payload):
        return json.dumps({"timestamp": f"2026-02-24T08:00:0{ts}.000Z", "type": rtype, "payload": payload})

    log = tmp_path / "rollout.jsonl"
    log.write_text("\n".join([
        line(0, "session_meta", {"id": "s", "cwd": "/srv/x", "cli_version": "0.104.0"}),
        line(1, "response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                  "arguments": json.dumps({"command": ["bash", "-lc", "make"]})}),
        line(2, "response_item", {"type": "function_call_output", "call_id": "c1", "output": "make: *** [all] Error 2"}),
        line(3, "event_msg", {"type": "exec_command_end", "call_id": "c1", "exit_code": 2,
                              "stdout": "", "stderr": "make: *** [all] Error 2"}),
        line(4, "response_item", {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": "The build failed."}]}),
    ]) + "\n")
    results = [e for w in iter_windows(log, window_events=window) for e in w.events if e.kind == "tool_result"]
    assert [(r.exit_code, r.is_error, r.stderr, r.result_of) for r in results] == [
        (2, True, "make: *** [all] Error 2", 0)]
