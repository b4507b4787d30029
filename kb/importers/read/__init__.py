"""Stage 2 of import, *read*: one small pure reader per tool output.

A reader takes the text of one output (a tool result in a transcript, a fenced block of a
notebook, a whole result file) and returns a :class:`Readout`: the runs it recognises, each with
its figures (:class:`Measure`, name → number as printed and unit) and settings (the run's
parameters and counts, as printed), the lines they came from, and a warning for every part it
recognised only in half. It never raises on odd text and never guesses from prose: each reader
knows the documented output of one tool, named in its ``SOURCES`` table.

Readers, in the order :func:`read_output` tries them (a line one of them claims is not read
again by a later one):

- :mod:`.vllm_bench`: ``vllm bench serve`` / ``benchmark_serving.py`` (text and ``--save-result`` JSON);
- :mod:`.sglang_bench`: SGLang ``bench_serving`` (text and ``--output-file`` JSONL) and
  ``bench_one_batch``/``bench_offline_throughput`` text;
- :mod:`.llama_bench`: llama-bench (markdown, CSV, JSON, JSONL);
- :mod:`.nccl_tests`: nccl-tests (``all_reduce_perf`` and the other ``*_perf`` programs);
- :mod:`.trtllm_bench`: TensorRT-LLM ``trtllm-bench`` reports;
- :mod:`.aiperf`: NVIDIA aiperf and genai-perf (console tables, JSON and CSV exports);
- :mod:`.go_bench`: Go benchmark results (``go test -bench``: medians of ``-count`` repetitions);
- :mod:`.torch_profiler`: PyTorch profiler summaries (``key_averages().table()``: one run a table);
- :mod:`.perf_analyzer`: Triton's ``perf_analyzer`` (its report and ``-f`` CSV: one run an invocation);
- :mod:`.errors`: a failed run's own output (Python tracebacks, CUDA, NCCL and compiler errors);
- :mod:`.lines`: output no reader knows: ``name value unit`` lines only, at lower confidence.

:mod:`.stack` reads stack facts (``nvidia-smi``, ``nvcc``, ``pip``, torch probes); :mod:`.labels`
names a figure from the words of its label (the field's metric terms); :mod:`.cells` reads one
table cell; :mod:`.console` splits a shell session into commands and their output.
"""

from kb.importers.read.base import Measure, Readout, RunReading
from kb.importers.read.run import read_output, recognises

__all__ = ["Measure", "Readout", "RunReading", "read_output", "recognises"]
