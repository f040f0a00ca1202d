#!/usr/bin/env bash
# Writes tests/data/aiperf/ and tests/data/guidellm/: AIPerf and GuideLLM, installed from PyPI into venvs of their
# own, run against tests/data/tools/stub_openai_server.py (30 ms to the first token, 5 ms a token after it) with a
# tokenizer made on this machine (tests/data/tools/make_tokenizer.py): no GPU, no model, no download.
#   AIPERF=/path/to/venv/bin GUIDELLM=/path/to/venv/bin OUT=/tmp/client-runs bash tests/data/tools/write_client_runs.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:?the folder the runs go to}"
mkdir -p "$out"
"$AIPERF/python" "$here/make_tokenizer.py" "$out/tokenizer"
python3 "$here/stub_openai_server.py" --port 8765 --model stub-model & server=$!
trap 'kill $server' EXIT
sleep 3
common=(--model stub-model --tokenizer "$out/tokenizer" --url http://127.0.0.1:8765 --endpoint-type chat --streaming
        --synthetic-input-tokens-mean 128 --synthetic-input-tokens-stddev 0 --output-tokens-mean 64
        --output-tokens-stddev 0 --random-seed 7 --ui-type none)
for c in 4 16; do
  "$AIPERF/aiperf" profile "${common[@]}" --concurrency "$c" --request-count 40 --artifact-dir "$out/aiperf_c$c"
done
"$AIPERF/aiperf" profile "${common[@]}" --concurrency 4,16 --request-count 40 --num-profile-runs 3 \
  --artifact-dir "$out/aiperf_sweep"
"$GUIDELLM/guidellm" run --backend kind=openai_http,target=http://127.0.0.1:8765 --profile kind=concurrent,streams=4 \
  --override profile.streams 4,16 --data kind=synthetic_text,prompt_tokens=128,output_tokens=64 \
  --tokenizer kind=huggingface_auto,model="$out/tokenizer" --constraint kind=max_requests,count=40 \
  --output kind=json,path="$out/guidellm/benchmarks.json" --disable-console-interactive
"$AIPERF/aiperf" --version > "$out/aiperf_version.txt"
"$GUIDELLM/guidellm" --version > "$out/guidellm_version.txt"
