"""Benchmark result files read by their documented keys: vLLM --save-result JSON, SGLang
bench_serving JSONL, llama-bench JSON and markdown."""

from __future__ import annotations

import json

from kb.importers import read_session
from kb.importers.score import score_session as extract


def figures(attempt):
    return {name: (f.text, f.unit) for name, f in attempt.metrics.items()}


def test_vllm_save_result(tmp_path):
    path = tmp_path / "openai-infqps-concurrency8.json"
    path.write_text(json.dumps({"date": "20260309-141502", "backend": "openai", "model_id": "Qwen/Qwen3-30B-A3B",
                                "num_prompts": 480, "max_concurrency": 8, "completed": 480, "failed": 0,
                                "request_throughput": 2.4, "output_throughput": 719.03, "total_token_throughput": 1248.45,
                                "median_ttft_ms": 224.35, "p99_tpot_ms": 11.3, "mean_e2el_ms": 900.5}, indent=2))
    session = read_session(path)
    assert session.format == "vllm-bench"
    [attempt] = extract(session).attempts
    assert figures(attempt) == {"output_throughput": ("719.03", "tok/s"), "total_throughput": ("1248.45", "tok/s"),
                                "request_throughput": ("2.4", "req/s"), "median_ttft": ("224.35", "ms"),
                                "p99_tpot": ("11.3", "ms"), "mean_e2e_latency": ("900.5", "ms")}
    assert str(attempt.date) == "2026-03-09" and attempt.outcome == "baseline"
    assert attempt.anchor.locator == "lines 1-15"  # the whole document


def test_sglang_output_file_lines_are_runs_of_one_family(tmp_path):
    path = tmp_path / "bench.jsonl"
    run = {"backend": "vllm-chat", "dataset_name": "image", "max_concurrency": None, "random_input_len": 16,
           "request_throughput": 17.53, "input_throughput": 17916.56, "output_throughput": 17.53,
           "median_ttft_ms": 25224.2, "accept_length": None}
    path.write_text(json.dumps(run) + "\n" + json.dumps({**run, "backend": "sglang-oai-chat", "output_throughput": 9.56}) + "\n")
    session = read_session(path)
    assert session.format == "sglang-bench"
    found = extract(session).attempts
    assert [(a.outcome, figures(a)["output_throughput"]) for a in found] == [
        ("baseline", ("17.53", "tok/s")), ("regressed", ("9.56", "tok/s"))]
    assert figures(found[0])["median_ttft"] == ("25224.2", "ms")


def test_llama_bench_json_and_markdown(tmp_path):
    rows = [{"model_type": "qwen2 7B Q4_K - Medium", "gpu_info": "NVIDIA GeForce RTX 4080", "n_gpu_layers": 99,
             "n_prompt": 512, "n_gen": 0, "n_depth": 0, "test_time": "2025-04-24T11:58:50Z", "avg_ts": 7100.002165},
            {"model_type": "qwen2 7B Q4_K - Medium", "gpu_info": "NVIDIA GeForce RTX 4080", "n_gpu_layers": 99,
             "n_prompt": 0, "n_gen": 128, "n_depth": 0, "test_time": "2025-04-24T11:59:00Z", "avg_ts": 118.881588}]
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(rows, indent=2))
    [attempt] = extract(read_session(path)).attempts
    assert figures(attempt)["output_throughput"] == ("118.881588", "tok/s")
    assert figures(attempt)["input_throughput[test=pp512]"] == ("7100.002165", "tok/s")
    assert str(attempt.date) == "2025-04-24" and attempt.settings["ngl"] == "99"  # llama-bench's n_gpu_layers
    table = tmp_path / "bench.md"
    table.write_text("| model | size | params | backend | ngl | test | t/s |\n| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
                     "| qwen2 7B | 4.36 GiB | 7.62 B | CUDA | 99 | pp512 | 7340.20 ± 23.45 |\n"
                     "| qwen2 7B | 4.36 GiB | 7.62 B | CUDA | 99 | tg128 | 120.60 ± 0.59 |\n"
                     "| qwen2 7B | 4.36 GiB | 7.62 B | CUDA | 99 | tg128 @ d512 | 116.71 ± 0.60 |\n\nbuild: 8cf427ff (5163)\n")
    session = read_session(table)
    assert session.format == "llama-bench"
    [attempt] = extract(session).attempts
    assert figures(attempt)["output_throughput"] == ("120.60", "tok/s")
    assert figures(attempt)["output_throughput[test=tg128 @ d512]"] == ("116.71", "tok/s")
    assert attempt.anchor.locator == "lines 1-5"
