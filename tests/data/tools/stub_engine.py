"""A batch scheduler for stub_openai_server.py's `--engine` mode, with the debug routes `vllm bench iterations`
drives (vLLM's iterations benchmark pauses the scheduler, queues a batch, lets only prefills run, then times the
decode and reads the server's own step times):

- POST /debug/sleep, /debug/wake_up: pause and resume scheduling;
- POST /debug/prefill_only?enabled=true|false: schedule prefills only;
- GET /debug/batch_info: `num_running`, `num_waiting`;
- POST /debug/step_stats/reset, GET /debug/step_stats: `prefill_steps`, `prefill_avg_ms`, `decode_steps`,
  `decode_avg_ms`, `decode_toks_per_step` since the reset;
- GET /debug/config: one data-parallel rank, TP 1.

Each engine step prefills every waiting request (`prefill_us_per_token` a prompt token) or, when none waits,
decodes one token for every running one in `step_ms + step_ms_per_seq` times the batch. A step's time is measured
around its sleep, as a server measures its own steps.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from fastapi import FastAPI


@dataclass
class Request:
    prompt_tokens: int
    max_tokens: int
    generated: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Stats:
    prefill_ms: list[float] = field(default_factory=list)
    decode_ms: list[float] = field(default_factory=list)
    decode_tokens: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        def mean(values):
            return sum(values) / len(values) if values else 0.0
        return {"prefill_steps": len(self.prefill_ms), "prefill_avg_ms": mean(self.prefill_ms),
                "decode_steps": len(self.decode_ms), "decode_avg_ms": mean(self.decode_ms),
                "decode_toks_per_step": round(mean(self.decode_tokens))}


class Engine:
    def __init__(self, step_ms: float, step_ms_per_seq: float, prefill_us_per_token: float) -> None:
        self.step_ms, self.step_ms_per_seq, self.prefill_us = step_ms, step_ms_per_seq, prefill_us_per_token
        self.sleeping = False
        self.prefill_only = False
        self.waiting: list[Request] = []
        self.running: list[Request] = []
        self.stats = Stats()
        self.wake = asyncio.Event()
        self.loop: asyncio.Task | None = None

    async def generate(self, prompt_tokens: int, max_tokens: int) -> Request:
        if self.loop is None:  # started by the first request, in the server's event loop
            self.loop = asyncio.create_task(self.run())
        request = Request(prompt_tokens, max_tokens)
        self.waiting.append(request)
        self.wake.set()
        await request.done.wait()
        return request

    async def _timed(self, seconds: float) -> float:
        start = time.perf_counter()
        await asyncio.sleep(seconds)
        return (time.perf_counter() - start) * 1000

    def _finish(self) -> None:
        for request in [r for r in self.running if r.generated >= r.max_tokens]:
            self.running.remove(request)
            request.done.set()

    async def run(self) -> None:
        while True:
            if self.sleeping or not (self.waiting or (self.running and not self.prefill_only)):
                self.wake.clear()
                await self.wake.wait()
                continue
            if self.waiting:
                batch, self.waiting = self.waiting, []
                elapsed = await self._timed(self.prefill_us * sum(r.prompt_tokens for r in batch) / 1e6)
                self.stats.prefill_ms.append(elapsed)
                for request in batch:
                    request.generated = 1
                self.running += batch
            else:
                size = len(self.running)
                elapsed = await self._timed((self.step_ms + self.step_ms_per_seq * size) / 1000)
                self.stats.decode_ms.append(elapsed)
                self.stats.decode_tokens.append(size)
                for request in self.running:
                    request.generated += 1
            self._finish()


def add_debug_routes(app: FastAPI, engine: Engine) -> None:
    def changed(**state) -> dict:
        for name, value in state.items():
            setattr(engine, name, value)
        engine.wake.set()
        return {"ok": True}

    @app.post("/debug/sleep")
    async def sleep(level: str = "0") -> dict:
        return changed(sleeping=True)

    @app.post("/debug/wake_up")
    async def wake_up() -> dict:
        return changed(sleeping=False)

    @app.post("/debug/prefill_only")
    async def prefill_only(enabled: str = "true") -> dict:
        return changed(prefill_only=enabled.lower() == "true")

    @app.get("/debug/batch_info")
    async def batch_info() -> dict:
        return {"num_running": len(engine.running), "num_waiting": len(engine.waiting)}

    @app.post("/debug/step_stats/reset")
    async def reset_stats() -> dict:
        engine.stats = Stats()
        return {"ok": True}

    @app.get("/debug/step_stats")
    async def step_stats() -> dict:
        return engine.stats.as_dict()

    @app.get("/debug/config")
    async def config() -> dict:
        return {"data_parallel_size": 1, "tensor_parallel_size": 1, "pipeline_parallel_size": 1, "world_size": 1}
