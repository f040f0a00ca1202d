#!/usr/bin/env bash
# Writes tests/data/vllm/iterations/: the client of `vllm bench iterations` (vllm/benchmarks/iterations.py of
# vllm-project/vllm at 0577e56b0cb7cc89bb2483944f16008abf0ef7ad; in no vLLM release up to 0.34, so its module is run
# as a script, with a logging.getLogger stand-in for vllm.logger and aiohttp installed) against
# tests/data/tools/stub_openai_server.py --engine, which serves the debug routes the client drives (stub_engine.py):
# a decode sweep at context 1024 over batch sizes 1, 16 and 64 (32 iterations each, plus the 500 tokens the client
# adds for steady state), and a prefill sweep of 1024 and 4096 new tokens at batch 1.
#   CLIENT=/path/to/iterations.py PYTHON=/path/to/venv/bin/python OUT=/tmp/iterations \
#     bash tests/data/tools/write_iterations_runs.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:?the folder the runs go to}"
client="${CLIENT:?the path of vllm/benchmarks/iterations.py}"
python="${PYTHON:-python3}"
model=meta-llama/Llama-3.1-8B-Instruct
mkdir -p "$out"
"$python" "$here/stub_openai_server.py" --port 8772 --model "$model" --engine --itl-ms 7.5 --step-ms-per-seq 0.06 \
  --prefill-us-per-token 45 & server=$!
trap 'kill $server' EXIT
sleep 3
"$python" "$client" --endpoints 127.0.0.1:8772 --model "$model" --mode decode --context-len 1024 \
  --batch-size 1,16,64 --iterations 32 --output "$out/decode_results.json"
"$python" "$client" --endpoints 127.0.0.1:8772 --model "$model" --mode prefill --input-len 1024,4096 \
  --batch-size 1 --output "$out/prefill_results.json"
