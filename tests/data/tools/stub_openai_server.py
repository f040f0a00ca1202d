"""A small OpenAI-compatible server for benchmark clients to run against with no GPU and no model: it answers
/v1/models, /v1/chat/completions and /v1/completions, streaming or not, with `max_tokens` words ("tok") after a
fixed time to first token and a fixed time a decode step, as a decode server would. tests/data/aiperf,
tests/data/guidellm and tests/data/vllm say which runs of which tools wrote their files against it.

With `--draft-tokens K --accept P1,...,PK` it decodes as a draft-and-verify server would: each step proposes K draft
tokens, accepts position i with probability Pi while the positions before it were accepted (seeded, so a run is
repeatable), and streams the accepted tokens and one more in one chunk; /metrics then counts drafts, draft tokens and
accepted tokens (overall and per position) under the Prometheus names vLLM's server exposes (`vllm:spec_decode_*`),
which `vllm bench serve` reads before and after a run, and /server_info gives the tokens a step so far as SGLang's
server does (`internal_states[0].avg_spec_accept_length`), which SGLang's `bench_serving` reads after a run.

With `--engine` a batch scheduler answers the non-streamed completions instead, one engine step at a time
(`--itl-ms` a decode step plus `--step-ms-per-seq` a sequence in the batch, `--prefill-us-per-token` a prompt token),
and the debug routes `vllm bench iterations` drives are served (stub_engine.py).

With `--tokenizer DIR` (a folder with a tokenizer.json) the usage it reports counts the prompt's tokens with that
tokenizer (the text of every message, no chat template); without it, the prompt's words.

    python tests/data/tools/stub_openai_server.py --port 8765 [--ttft-ms 30] [--itl-ms 5] [--model stub-model]
        [--draft-tokens 1 --accept 0.7 --seed 0] [--tokenizer DIR]
        [--engine --step-ms-per-seq 0.05 --prefill-us-per-token 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
import uuid

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse


class Speculation:
    """Draft-and-verify decoding: how many tokens each step yields, and the counters vLLM's server keeps."""

    def __init__(self, accept: list[float], seed: int) -> None:
        self.accept, self.random = accept, random.Random(seed)
        self.drafts = self.draft_tokens = self.accepted = 0
        self.accepted_at = [0] * len(accept)

    def step(self) -> int:
        accepted = 0
        for probability in self.accept:
            if self.random.random() >= probability:
                break
            self.accepted_at[accepted] += 1
            accepted += 1
        self.drafts += 1
        self.draft_tokens += len(self.accept)
        self.accepted += accepted
        return 1 + accepted

    def accept_length(self) -> float:
        """Tokens a step, the drafts accepted and the one the verify adds."""
        return (self.drafts + self.accepted) / self.drafts if self.drafts else 0.0

    def prometheus(self, model: str) -> str:
        labels = f'engine="0",model_name="{model}"'
        lines = [f"vllm:spec_decode_num_drafts_total{{{labels}}} {float(self.drafts)}",
                 f"vllm:spec_decode_num_draft_tokens_total{{{labels}}} {float(self.draft_tokens)}",
                 f"vllm:spec_decode_num_accepted_tokens_total{{{labels}}} {float(self.accepted)}"]
        lines += [f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="{i}"}} {float(n)}'
                  for i, n in enumerate(self.accepted_at)]
        return "\n".join(lines) + "\n"


def chunk_sizes(tokens: int, speculation: Speculation | None) -> list[int]:
    """The tokens each decode step yields after the first token, up to `tokens` in all."""
    sizes, left = [], tokens - 1
    while left > 0:
        size = min(left, speculation.step() if speculation else 1)
        sizes.append(size)
        left -= size
    return sizes


def prompt_counter(tokenizer_dir: str | None):
    """Counts a request's prompt tokens: with the tokenizer in `tokenizer_dir`, else as words."""
    if not tokenizer_dir:
        return lambda text: max(1, len(text.split()))
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(f"{tokenizer_dir}/tokenizer.json")
    return lambda text: max(1, len(tokenizer.encode(text, add_special_tokens=False).ids))


def prompt_text(body: dict, chat: bool) -> str:
    if not chat:
        prompt = body.get("prompt")
        return prompt if isinstance(prompt, str) else json.dumps(prompt)
    parts = []
    for message in body.get("messages") or []:
        content = message.get("content")
        parts += [content] if isinstance(content, str) else [c.get("text", "") for c in content or [] if isinstance(c, dict)]
    return "".join(parts)


def make_app(model: str, ttft_ms: float, itl_ms: float, speculation: Speculation | None = None,
             tokenizer_dir: str | None = None, engine=None) -> FastAPI:
    app = FastAPI()
    count_prompt = prompt_counter(tokenizer_dir)
    if engine is not None:
        from stub_engine import add_debug_routes

        add_debug_routes(app, engine)

    @app.get("/metrics", response_class=PlainTextResponse)
    async def metrics() -> str:
        return speculation.prometheus(model) if speculation else ""

    @app.get("/server_info")
    async def server_info() -> dict:
        state = {"avg_spec_accept_length": speculation.accept_length()} if speculation else {}
        return {"model_path": model, "internal_states": [state]}

    @app.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "stub"}]}

    @app.get("/health")
    async def health() -> dict:
        return {"ok": True}

    async def answer(request: Request, chat: bool):
        body = await request.json()
        tokens = int(body.get("max_completion_tokens") or body.get("max_tokens") or 16)
        if tokenizer_dir:
            prompt_tokens = count_prompt(prompt_text(body, chat))
        else:  # as the runs in tests/data/aiperf, guidellm and vllm/sweep counted them: the words of the JSON
            prompt_tokens = count_prompt(json.dumps(body.get("messages") if chat else body.get("prompt")))
        rid, created = f"stub-{uuid.uuid4().hex[:12]}", int(time.time())
        kind = "chat.completion" if chat else "text_completion"
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": tokens, "total_tokens": prompt_tokens + tokens}

        def choice(text: str, done: bool) -> dict:
            if chat:
                return {"index": 0, "delta": {"role": "assistant", "content": text} if text else {},
                        "finish_reason": "length" if done else None}
            return {"index": 0, "text": text, "finish_reason": "length" if done else None}

        steps = chunk_sizes(tokens, speculation)
        if not body.get("stream"):
            if engine is not None:
                await engine.generate(prompt_tokens, tokens)
            else:
                await asyncio.sleep((ttft_ms + itl_ms * len(steps)) / 1000)
            text = " ".join(["tok"] * tokens)
            content = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"} \
                if chat else {"index": 0, "text": text, "finish_reason": "length"}
            return JSONResponse({"id": rid, "object": kind, "created": created, "model": model, "choices": [content],
                                 "usage": usage})

        async def stream():
            await asyncio.sleep(ttft_ms / 1000)
            for n, size in enumerate([1, *steps]):
                if n:
                    await asyncio.sleep(itl_ms / 1000)
                text = " tok" * size if n else "tok"
                chunk = {"id": rid, "object": f"{kind}.chunk", "created": created, "model": model,
                         "choices": [choice(text, n == len(steps))]}
                yield f"data: {json.dumps(chunk)}\n\n"
            if (body.get("stream_options") or {}).get("include_usage"):
                yield f"data: {json.dumps({'id': rid, 'object': f'{kind}.chunk', 'created': created, 'model': model, 'choices': [], 'usage': usage})}\n\n"  # noqa: E501
            yield "data: [DONE]\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream")

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request):
        return await answer(request, chat=True)

    @app.post("/v1/completions")
    async def completions(request: Request):
        return await answer(request, chat=False)

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--model", default="stub-model")
    parser.add_argument("--ttft-ms", type=float, default=30.0)
    parser.add_argument("--itl-ms", type=float, default=5.0, help="time a decode step")
    parser.add_argument("--draft-tokens", type=int, default=0)
    parser.add_argument("--accept", default="", help="acceptance probability of each draft position, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tokenizer", help="a folder with tokenizer.json to count prompt tokens with")
    parser.add_argument("--engine", action="store_true", help="a batch scheduler with vLLM's debug routes")
    parser.add_argument("--step-ms-per-seq", type=float, default=0.0, help="--engine: decode time a sequence")
    parser.add_argument("--prefill-us-per-token", type=float, default=20.0, help="--engine: prefill a prompt token")
    args = parser.parse_args()
    accept = [float(p) for p in args.accept.split(",") if p]
    if len(accept) != args.draft_tokens:
        parser.error(f"--accept names {len(accept)} positions for {args.draft_tokens} draft tokens")
    speculation = Speculation(accept, args.seed) if args.draft_tokens else None
    engine = None
    if args.engine:
        from stub_engine import Engine

        engine = Engine(args.itl_ms, args.step_ms_per_seq, args.prefill_us_per_token)
    app = make_app(args.model, args.ttft_ms, args.itl_ms, speculation, args.tokenizer, engine)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
