"""A small OpenAI-compatible server for benchmark clients to run against with no GPU and no model: it answers
/v1/models, /v1/chat/completions and /v1/completions, streaming or not, with `max_tokens` words ("tok") after a
fixed time to first token and a fixed time a token, as a decode server would. tests/data/aiperf and
tests/data/guidellm say which runs of which tools wrote their files against it.

    python tests/data/tools/stub_openai_server.py --port 8765 [--ttft-ms 30] [--itl-ms 5] [--model stub-model]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse


def make_app(model: str, ttft_ms: float, itl_ms: float) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "stub"}]}

    @app.get("/health")
    async def health() -> dict:
        return {"ok": True}

    async def answer(request: Request, chat: bool):
        body = await request.json()
        tokens = int(body.get("max_completion_tokens") or body.get("max_tokens") or 16)
        prompt = json.dumps(body.get("messages") if chat else body.get("prompt"))
        prompt_tokens = max(1, len(prompt.split()))
        rid, created = f"stub-{uuid.uuid4().hex[:12]}", int(time.time())
        kind = "chat.completion" if chat else "text_completion"
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": tokens, "total_tokens": prompt_tokens + tokens}

        def choice(text: str, done: bool) -> dict:
            if chat:
                return {"index": 0, "delta": {"role": "assistant", "content": text} if text else {},
                        "finish_reason": "length" if done else None}
            return {"index": 0, "text": text, "finish_reason": "length" if done else None}

        if not body.get("stream"):
            await asyncio.sleep((ttft_ms + itl_ms * (tokens - 1)) / 1000)
            text = " ".join(["tok"] * tokens)
            content = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"} \
                if chat else {"index": 0, "text": text, "finish_reason": "length"}
            return JSONResponse({"id": rid, "object": kind, "created": created, "model": model, "choices": [content],
                                 "usage": usage})

        async def stream():
            await asyncio.sleep(ttft_ms / 1000)
            for n in range(tokens):
                if n:
                    await asyncio.sleep(itl_ms / 1000)
                chunk = {"id": rid, "object": f"{kind}.chunk", "created": created, "model": model,
                         "choices": [choice(" tok" if n else "tok", n == tokens - 1)]}
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
    parser.add_argument("--itl-ms", type=float, default=5.0)
    args = parser.parse_args()
    uvicorn.run(make_app(args.model, args.ttft_ms, args.itl_ms), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
