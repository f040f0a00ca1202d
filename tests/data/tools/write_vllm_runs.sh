#!/usr/bin/env bash
# Writes tests/data/vllm/: vLLM's own benchmark client (`pip install vllm pandas`, CPU only: the client needs no
# GPU) run against tests/data/tools/stub_openai_server.py with the tokenizer tests/data/tools/make_tokenizer.py
# writes. `vllm bench serve --save-result` once at concurrency 4, and `vllm bench sweep serve` over concurrency 4
# and 16, three runs each, the sweep starting the stub as its server.
#   VLLM=/path/to/venv/bin TOKENIZER=/path/to/tokenizer OUT=/tmp/vllm-runs bash tests/data/tools/write_vllm_runs.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:?the folder the runs go to}"
mkdir -p "$out"
export PATH="$VLLM:$PATH"
client=(--backend openai-chat --endpoint /v1/chat/completions --model stub-model --tokenizer "$TOKENIZER"
        --dataset-name random --random-input-len 128 --random-output-len 64 --num-prompts 40 --seed 7)
python3 "$here/stub_openai_server.py" --port 8765 & server=$!
trap 'kill $server' EXIT
sleep 3
vllm bench serve "${client[@]}" --base-url http://127.0.0.1:8765 --max-concurrency 4 --save-result \
  --result-dir "$out" --result-filename bench_serve_c4.json
echo '[{"max_concurrency": 4}, {"max_concurrency": 16}]' > "$out/bench_params.json"
vllm bench sweep serve --serve-cmd "python3 $here/stub_openai_server.py --port 8766" \
  --bench-cmd "vllm bench serve ${client[*]} --base-url http://127.0.0.1:8766" \
  --bench-params "$out/bench_params.json" --num-runs 3 --after-bench-cmd true -o "$out" -e sweep
vllm --version > "$out/vllm_version.txt" 2>/dev/null || python3 -c "import vllm; print(vllm.__version__)" > "$out/vllm_version.txt"
