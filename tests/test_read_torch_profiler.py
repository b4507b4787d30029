"""The PyTorch profiler reader (kb.importers.read.torch_profiler) on the shapes ``_build_table``
prints (torch/autograd/profiler_util.py): as printed, pasted into a Markdown pipe table, CPU only,
with memory columns, two tables in one output, and a table cut off before its totals. Written
here from the documented format; published outputs are in tests/fixtures/readers/torch-profiler
(tests/test_readers.py)."""

from __future__ import annotations

from textwrap import dedent

import pytest

from kb.importers.read import read_output, torch_profiler

RULE = "-" * 20 + "  " + "  ".join(["-" * 12] * 5)

PRINTED = dedent(f"""\
    {RULE}
                    Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total    # of Calls
    {RULE}
         aten::conv2d         2.10%     310.000us        40.00%       5.900ms     295.000us       3.100ms        61.00%       3.100ms            20
          aten::addmm         1.00%     150.000us         9.00%       1.300ms      65.000us       1.200ms        23.00%       1.200ms            20
    {RULE}
    Self CPU time total: 14.750ms
    Self CUDA time total: 5.080ms
    """)

PIPES = dedent("""\
    | Name | Self CPU % | Self CPU | CPU total % | CPU total | Self CUDA | CUDA total | # of Calls |
    |---|---|---|---|---|---|---|---|
    | model_forward | 12.00% | 2.400s | 100.00% | 20.100s | 0.000us | 18.900s | 1 |
    | aten::mm | 3.00% | 610.000ms | 9.00% | 1.800s | 11.200s | 11.200s | 4000 |

    **Self CPU time total: 20.100s**
    **Self CUDA time total: 18.874s**
    """).replace("s**\n**", "s**  \n**")  # a Markdown line break: two spaces at the end of the line

CPU_ONLY = dedent(f"""\
    {RULE}
                    Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls
    {RULE}
          aten::linear         4.00%      40.000us        80.00%     800.000us     400.000us             2
    {RULE}
    Self CPU time total: 1.000ms
    """)

MEMORY = dedent(f"""\
    {RULE}
                    Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg       CPU Mem  Self CPU Mem      CUDA Mem  Self CUDA Mem    # of Calls
    {RULE}
       aten::empty_like         1.00%      12.000us         2.00%      25.000us       6.250us           0 b           0 b      64.00 Mb      64.00 Mb             4
    {RULE}
    Self CPU time total: 1.250ms
    Self CUDA time total: 902.000us
    """)


@pytest.mark.parametrize("text, want", [
    (PRINTED, [({"time": ("5.080", "ms"), "cpu_time": ("14.750", "ms")}, {"top_op": "aten::conv2d", "device": "cuda"})]),
    (PIPES, [({"time": ("18.874", "s"), "cpu_time": ("20.100", "s")}, {"top_op": "model_forward", "device": "cuda"})]),
    (CPU_ONLY, [({"time": ("1.000", "ms")}, {"top_op": "aten::linear"})]),
    (MEMORY, [({"time": ("902.000", "us"), "cpu_time": ("1.250", "ms")}, {"top_op": "aten::empty_like", "device": "cuda"})]),
    ("step 1\n" + PRINTED + "\nstep 2\n" + CPU_ONLY,
     [({"time": ("5.080", "ms"), "cpu_time": ("14.750", "ms")}, {"top_op": "aten::conv2d", "device": "cuda"}),
      ({"time": ("1.000", "ms")}, {"top_op": "aten::linear"})]),
], ids=["printed", "markdown-pipes", "cpu-only", "memory-columns", "two-tables"])
def test_one_run_a_table_with_its_totals(text, want):
    out = torch_profiler.read(text)
    got = [({k: (m.text, m.unit) for k, m in run.metrics.items()}, run.settings) for run in out.runs]
    assert got == want
    assert out.warnings == []


def test_a_table_cut_off_before_its_totals_is_left_out_with_a_warning():
    cut = PRINTED.split("Self CPU time total")[0]
    out = torch_profiler.read(cut)
    assert out.runs == []
    assert len(out.warnings) == 1 and "line 2" in out.warnings[0]


def test_the_rows_are_the_runs_breakdown_not_runs_of_their_own():
    out = read_output(PRINTED)
    assert [run.tool for run in out.runs] == ["torch.profiler"]
    assert out.runs[0].lines == (1, 8)  # the first rule to the device total
