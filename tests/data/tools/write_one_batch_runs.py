"""Writes tests/data/sglang/one_batch.jsonl with SGLang's own static-batch benchmark code, CPU only.

`python -m sglang.benchmark.one_batch` (what `python -m sglang.bench_one_batch` runs) loads a model into SGLang's
ModelRunner, which needs a GPU and SGLang's CUDA kernels. Its measurement is one function,
`latency_test_run_once(run_name, model_runner, ...)`, which times `model_runner.extend` (the prefill) and every
`model_runner.decode` step around `model_runner.synchronize()` and returns the record the benchmark appends to
`--result-filename` as a JSON line. The module takes its runner from a wrapper class (`_TorchBenchRunner`,
`_MlxBenchRunner`), so the function runs unchanged against any object with that wrapper's methods.

This script reads that function's source from the module file of an installed or unpacked SGLang wheel (ONE_BATCH,
the path of `sglang/benchmark/one_batch.py`), executes it unchanged, and gives it `StubBatchRunner`: a static batch
whose prefill sleeps `prefill_us_per_token` for every prompt token of the batch and whose decode step sleeps
`step_ms + step_ms_per_seq x batch`, the timing tests/data/tools/stub_engine.py gives the stub server's steps. Then it
does what `latency_test` does around it: a warm-up run at the first batch size, input length and min(32, output
length) tokens out, the sweep over every batch size, input length and output length, and the records appended to
the result file one JSON line each (`fout.write(json.dumps(result) + "\\n")`).

    python3 tests/data/tools/write_one_batch_runs.py --one-batch <unpacked wheel>/sglang/benchmark/one_batch.py \
      --run-name demo --batch-size 1 16 --input-len 1024 --output-len 256 --result-filename one_batch.jsonl
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import time

import numpy as np

MEASURED = "latency_test_run_once"


class StubBatchRunner:
    """The methods latency_test_run_once calls on SGLang's bench runner, timed like stub_engine.Engine's steps."""

    def __init__(self, step_ms: float, step_ms_per_seq: float, prefill_us_per_token: float) -> None:
        self.step_ms, self.step_ms_per_seq, self.prefill_us = step_ms, step_ms_per_seq, prefill_us_per_token

    def max_batch_size(self, input_len: int, output_len: int) -> int:
        return 1 << 20

    def clear(self) -> None:
        pass

    def extend(self, reqs: list[int]):
        time.sleep(sum(reqs) * self.prefill_us / 1e6)
        return [0] * len(reqs), None, len(reqs)

    def decode(self, next_token_ids: list[int], batch: int):
        time.sleep((self.step_ms + self.step_ms_per_seq * batch) / 1000)
        return next_token_ids, None

    def cleanup(self, batch: int) -> None:
        pass

    def synchronize(self) -> None:
        pass


def measured_function(path: str):
    """SGLang's latency_test_run_once, compiled from its own source file, with the names it reads at run time."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == MEASURED)
    namespace = {"np": np, "time": time}
    exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), namespace)
    return namespace[MEASURED]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one-batch", required=True, help="path of sglang/benchmark/one_batch.py")
    parser.add_argument("--run-name", default="before")
    parser.add_argument("--batch-size", type=int, nargs="+", default=[1])
    parser.add_argument("--input-len", type=int, nargs="+", default=[1024])
    parser.add_argument("--output-len", type=int, nargs="+", default=[16])
    parser.add_argument("--result-filename", required=True)
    parser.add_argument("--step-ms", type=float, default=7.5)
    parser.add_argument("--step-ms-per-seq", type=float, default=0.06)
    parser.add_argument("--prefill-us-per-token", type=float, default=45.0)
    args = parser.parse_args()
    run_once = measured_function(args.one_batch)
    runner = StubBatchRunner(args.step_ms, args.step_ms_per_seq, args.prefill_us_per_token)

    def run(batch: int, input_len: int, output_len: int):
        reqs = [input_len] * batch  # a request is its prompt's token count here
        return run_once(args.run_name, runner, print, reqs, batch, input_len, output_len, log_decode_step=0,
                        profile=False, profile_record_shapes=False, profile_activities=("CPU", "GPU"),
                        profile_prefix="", profile_stage="all", tp_rank=0)

    print("Warmup ...")
    run(args.batch_size[0], args.input_len[0], min(32, args.output_len[0]))
    print("Benchmark ...")
    results = [run(bs, il, ol) for bs, il, ol in itertools.product(args.batch_size, args.input_len, args.output_len)]
    with open(args.result_filename, "a") as fout:
        for result in results:
            if result is not None:
                fout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
