#!/usr/bin/env bash
# Writes tests/data/vllm/: vLLM's own benchmark client (`pip install vllm pandas`, CPU only: the client needs no
# GPU) run against tests/data/tools/stub_openai_server.py with the tokenizer tests/data/tools/make_tokenizer.py
# writes. `vllm bench serve --save-result` once at concurrency 4, and `vllm bench sweep serve` over concurrency 4
# and 16, three runs each, the sweep starting the stub as its server.
#   VLLM=/path/to/venv/bin TOKENIZER=/path/to/tokenizer OUT=/tmp/vllm-runs bash tests/data/tools/write_vllm_runs.sh
# RUNS names the parts to run (default all): "single sweep append".
set -euo pipefail
runs=" ${RUNS:-single sweep append} "
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:?the folder the runs go to}"
mkdir -p "$out"
export PATH="$VLLM:$PATH"
client=(--backend openai-chat --endpoint /v1/chat/completions --model stub-model --tokenizer "$TOKENIZER"
        --dataset-name random --random-input-len 128 --random-output-len 64 --num-prompts 40 --seed 7)
if [[ $runs == *" single "* ]]; then
  python3 "$here/stub_openai_server.py" --port 8765 & server=$!
  sleep 3
  vllm bench serve "${client[@]}" --base-url http://127.0.0.1:8765 --max-concurrency 4 --save-result \
    --result-dir "$out" --result-filename bench_serve_c4.json
  kill $server
fi
if [[ $runs == *" sweep "* ]]; then
  echo '[{"max_concurrency": 4}, {"max_concurrency": 16}]' > "$out/bench_params.json"
  vllm bench sweep serve --serve-cmd "python3 $here/stub_openai_server.py --port 8766" \
    --bench-cmd "vllm bench serve ${client[*]} --base-url http://127.0.0.1:8766" \
    --bench-params "$out/bench_params.json" --num-runs 3 --after-bench-cmd true -o "$out" -e sweep
fi

# bench_serve_append.json: two `--append-result` runs into one file, as a campaign's CI keeps them, for a model and
# workload of the demo campaign (1024 tokens in, 256 out): at concurrency 1 against a draft-and-verify server (one
# draft token a step accepted 70% of the time, 38 ms a step; the client reads the acceptance from /metrics), and at
# concurrency 16 against a server with no drafts (250 ms a step); both servers count prompt tokens with the tokenizer.
if [[ $runs == *" append "* ]]; then
  model=deepseek-ai/DeepSeek-V4-Flash
  append=(--backend openai-chat --endpoint /v1/chat/completions --model "$model" --tokenizer "$TOKENIZER"
          --dataset-name random --random-input-len 1024 --random-output-len 256 --seed 7 --save-result --append-result
          --result-dir "$out" --result-filename bench_serve_append.json)
  python3 "$here/stub_openai_server.py" --port 8767 --model "$model" --ttft-ms 400 --itl-ms 38 --draft-tokens 1 \
    --accept 0.7 --seed 0 --tokenizer "$TOKENIZER" & drafts=$!
  sleep 3
  vllm bench serve "${append[@]}" --base-url http://127.0.0.1:8767 --max-concurrency 1 --num-prompts 6 --label mtp-on
  kill $drafts
  python3 "$here/stub_openai_server.py" --port 8768 --model "$model" --ttft-ms 400 --itl-ms 250 --tokenizer "$TOKENIZER" & plain=$!
  sleep 3
  vllm bench serve "${append[@]}" --base-url http://127.0.0.1:8768 --max-concurrency 16 --num-prompts 16 --label mtp-off
  kill $plain
fi
vllm --version > "$out/vllm_version.txt" 2>/dev/null || python3 -c "import vllm; print(vllm.__version__)" > "$out/vllm_version.txt"
