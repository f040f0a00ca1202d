#!/usr/bin/env bash
# Writes tests/data/sglang/: SGLang's own benchmark client, `python -m sglang.benchmark.serving` (the module
# `sglang.bench_serving` now points to), CPU only, run against tests/data/tools/stub_openai_server.py with the
# tokenizer tests/data/tools/make_tokenizer.py writes. Two runs appended to one JSONL file for the demo campaign's
# model name and workload (1024 tokens in, 256 out, random token ids: no dataset download): at concurrency 1 against
# a draft-and-verify stub (one draft token a step, accepted 70% of the time, 38 ms a step; the client reads the accept
# length from /server_info, as from an SGLang server), then at concurrency 16 against a stub with no drafts (250 ms
# a step). SGLANG is a venv's bin folder where `pip install --no-deps sglang` sits beside its client's imports.
#   SGLANG=/path/to/venv/bin TOKENIZER=/path/to/tokenizer OUT=/tmp/sglang-runs bash tests/data/tools/write_sglang_runs.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:?the folder the runs go to}"
mkdir -p "$out"
export PATH="$SGLANG:$PATH"
model=deepseek-ai/DeepSeek-V4-Flash
client=(--backend sglang-oai-chat --model "$model" --tokenizer "$TOKENIZER" --dataset-name random-ids
        --random-input-len 1024 --random-output-len 256 --random-range-ratio 1 --seed 7
        --output-file "$out/bench_serving.jsonl")
python3 "$here/stub_openai_server.py" --port 8769 --model "$model" --ttft-ms 400 --itl-ms 38 --draft-tokens 1 \
  --accept 0.7 --seed 0 --tokenizer "$TOKENIZER" & drafts=$!
sleep 3
python3 -m sglang.benchmark.serving "${client[@]}" --base-url http://127.0.0.1:8769 --max-concurrency 1 --num-prompts 6
kill $drafts
python3 "$here/stub_openai_server.py" --port 8770 --model "$model" --ttft-ms 400 --itl-ms 250 --tokenizer "$TOKENIZER" \
  & plain=$!
sleep 3
python3 -m sglang.benchmark.serving "${client[@]}" --base-url http://127.0.0.1:8770 --max-concurrency 16 --num-prompts 16
kill $plain
python3 -c "import importlib.metadata as m; print(m.version('sglang'))" > "$out/sglang_version.txt"
