"""Uploads parsed in a worker process: bounded in CPU time, memory and wall time, cancellable from any server.

The web worker that took the upload starts a process (forked from a forkserver that has the importers loaded,
never from the threaded server itself) and watches it from a thread. The process reads the database on its
own connection, writes its progress to the job's row about twice a second, and its preview or its errors when
it ends. Everything about a job is in the database and its files are in the shared upload folder, so another
worker, or another server on the same database, polls it, cancels it and confirms it.

Limits, enforced in the process: RLIMIT_CPU (SIGXCPU at the limit, SIGKILL five seconds of CPU later) and
RLIMIT_AS (an allocation past it raises MemoryError); the watcher kills a process running past the wall-time
limit or whose job was cancelled.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import resource
import shutil
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from tierplan.config import Settings
from tierplan.db import jobs
from tierplan.db.engine import make_engine, new_session
from tierplan.importers.errors import ImportFileError
from tierplan.models.errors import FormInvalid
from tierplan.services.imports import ImportOptions, preview_import

log = logging.getLogger("tierplan")
T = TypeVar("T")
PROGRESS_EVERY_S = 0.5  # progress writes (and cancellation checks) at most this often
WATCH_EVERY_S = 0.2
MEMORY_HEADROOM = 256 << 20
BUSY_TRIES = 6  # a job's write tried this often (7.5 s in all) while the database is busy

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload([__name__])


MEMORY_BASE = 256 << 20  # what a parse may take above what its process holds at the start, for any file ...
MEMORY_PER_FILE_BYTE = 16  # ... and per byte uploaded (a trace's kept columns stay well under its gzip's size x 10)


@dataclass(frozen=True)
class ParseLimits:
    cpu_s: int
    memory_mb: int  # the cap; a parse gets less when its files are small (memory_for)
    wall_s: int
    at_once: int = 2  # parses a server process runs at once; the others wait

    @classmethod
    def of(cls, settings: Settings) -> ParseLimits:
        return cls(settings.parse_cpu_s, settings.parse_memory_mb, settings.parse_cpu_s * 2, settings.max_parses)

    def memory_for(self, total_bytes: int, held_bytes: int) -> int:
        """The address space a parse of `total_bytes` may use, its process holding `held_bytes` already."""
        return min(self.memory_mb << 20, held_bytes + MEMORY_BASE + MEMORY_PER_FILE_BYTE * total_bytes)


@dataclass(frozen=True)
class ParseRequest:
    """What a worker process needs: all plain values, sent to it pickled."""

    database_url: str
    token: str
    campaign_id: int
    files: list[tuple[str, Path]]
    options: ImportOptions
    now: datetime
    limits: ParseLimits
    folder: Path  # the upload's folder: the values to import are written there for the confirm


class Cancelled(BaseException):
    """The job stopped parsing (cancelled, or given up by a watcher): stop at once, write nothing."""


class CpuLimit(BaseException):
    """SIGXCPU: the process used its CPU time."""


def _in(engine: Engine, write: Callable[..., T], **values: Any) -> T:
    """`write` in a transaction of its own (the worker process and the watcher hold none open), tried again while
    the database is busy (many writers at once): a job's end is never lost to a busy timeout."""
    for attempt in range(BUSY_TRIES):
        try:
            with engine.begin() as connection:
                return write(connection, **values)
        except OperationalError:
            if attempt == BUSY_TRIES - 1:
                raise
            time.sleep(0.5 * (attempt + 1))
    raise AssertionError("unreachable: the last try raises")


def errors_json(errors: dict[str, str]) -> str:
    return json.dumps(errors)


class ParseHandle:
    """A started parse; `wait()` returns when its process has ended and its job says so."""

    def __init__(self, thread: threading.Thread):
        self.thread = thread

    def wait(self) -> None:
        self.thread.join()


_SLOTS: dict[int, threading.BoundedSemaphore] = {}
_SLOTS_LOCK = threading.Lock()


def _slots(at_once: int) -> threading.BoundedSemaphore:
    with _SLOTS_LOCK:
        return _SLOTS.setdefault(at_once, threading.BoundedSemaphore(max(1, at_once)))


def start_parse(engine: Engine, request: ParseRequest, folder: Path) -> ParseHandle:
    """Parse in a new process once one of the server's parse slots is free (the job waits meanwhile, and says
    so); the job's row must exist and be committed (the process looks it up)."""
    slots = _slots(request.limits.at_once)
    began = slots.acquire(blocking=False)
    if began and not _in(engine, jobs.begin_parse, token=request.token):
        slots.release()
        began = False
    thread = threading.Thread(target=_wait_then_parse, args=(engine, request, folder, slots, began),
                              name=f"watch-{request.token[:8]}", daemon=True)
    thread.start()
    return ParseHandle(thread)


def _wait_then_parse(engine: Engine, request: ParseRequest, folder: Path, slots: threading.BoundedSemaphore,
                     began: bool) -> None:
    if not began:
        while not slots.acquire(timeout=1.0):
            if not _in(engine, jobs.keep_waiting, token=request.token):  # cancelled while waiting
                shutil.rmtree(folder, ignore_errors=True)
                return
    process = None
    try:
        if not began and not _in(engine, jobs.begin_parse, token=request.token):
            shutil.rmtree(folder, ignore_errors=True)
            return
        process = _CONTEXT.Process(target=parse_in_process, args=(request,), name=f"parse-{request.token[:8]}",
                                   daemon=True)
        process.start()
        _watch(process, engine, request, folder)
    except Exception:  # the database gone for longer than BUSY_TRIES, say: the job must not stay "parsing"
        log.exception("watching the parse of upload %s failed", request.token)
        _give_up(process, engine, request, folder)
    finally:
        slots.release()


def _give_up(process: Any, engine: Engine, request: ParseRequest, folder: Path) -> None:
    """Stop the parse, mark its job failed if it has not ended, and remove its files (best effort: the page's
    import_jobs.end_if_silent ends a job no one could mark)."""
    if process is not None and process.exitcode is None:
        process.kill()
        process.join()
    try:
        _in(engine, jobs.fail, token=request.token, errors=errors_json(
            {"files": "the server could not follow the parse (the database was busy): upload the files again"}))
        ended = _in(engine, jobs.state_of, token=request.token)
    except OperationalError:
        ended = None  # not known: the files stay for import_jobs.end_if_silent's failure, which the page shows
    if ended in ("failed", "cancelled"):
        shutil.rmtree(folder, ignore_errors=True)


def _watch(process: Any, engine: Engine, request: ParseRequest, folder: Path) -> None:
    limits, token = request.limits, request.token
    deadline, next_check = time.monotonic() + limits.wall_s, time.monotonic() + 1.0
    reason = ""
    while process.exitcode is None:
        process.join(WATCH_EVERY_S)
        now = time.monotonic()
        if process.exitcode is None and now > deadline:
            process.kill()
            reason = f"parsing took longer than {limits.wall_s} s: nothing was imported"
        elif process.exitcode is None and now > next_check:
            next_check = now + 1.0
            if _state_now(engine, token) not in ("parsing", None):
                process.kill()  # cancelled meanwhile, maybe from another worker
    process.join()
    if not reason and process.exitcode in (-signal.SIGXCPU, -signal.SIGKILL):
        reason = f"parsing used more than {limits.cpu_s} s of CPU time: nothing was imported"
    elif not reason and process.exitcode != 0:
        reason = f"the parser stopped (exit code {process.exitcode}): nothing was imported"
    if reason:
        _in(engine, jobs.fail, token=token, errors=errors_json({"files": reason}))
    if _in(engine, jobs.state_of, token=token) in (None, "failed", "cancelled"):
        shutil.rmtree(folder, ignore_errors=True)  # a failed or cancelled import leaves nothing on disk


def _state_now(engine: Engine, token: str) -> str | None:
    """The job's state, or None while the database is too busy to say (asked again a second later)."""
    try:
        with engine.connect() as connection:
            return jobs.state_of(connection, token=token) or "gone"
    except OperationalError:
        return None


def parse_in_process(request: ParseRequest) -> None:
    """The worker process: limit itself, parse, store the preview or the errors in the job's row."""
    engine = make_engine(request.database_url)
    with engine.connect():
        pass  # the driver loaded and one connection pooled before the limits, so a failure can be reported
    _limit(request.limits, sum(path.stat().st_size for _, path in request.files))
    progress = _Progress(engine, request.token)
    try:
        with new_session(engine) as session:
            preview = preview_import(session, request.campaign_id, request.files, request.options, now=request.now,
                                     rows_dir=request.folder, on_progress=progress)
        _in(engine, jobs.finish, token=request.token, preview=preview.to_json())
    except Cancelled:
        pass
    except CpuLimit:
        _fail(engine, request, f"parsing used more than {request.limits.cpu_s} s of CPU time: nothing was imported")
    except MemoryError:
        limit_mb = resource.getrlimit(resource.RLIMIT_AS)[0] >> 20
        _lift_memory_limit()
        _fail(engine, request, f"parsing needed more than {limit_mb} MB of memory (the limit for files of this "
                               "size): nothing was imported")
    except FormInvalid as exc:
        _in(engine, jobs.fail, token=request.token, errors=errors_json(exc.errors))
    except ImportFileError as exc:
        _fail(engine, request, str(exc))
    except Exception:
        if _in(engine, jobs.state_of, token=request.token) != "parsing":
            return  # cancelled meanwhile: its files went first
        log.exception("parsing upload %s failed", request.token)
        _fail(engine, request, "the server could not parse these files; nothing was imported")
    finally:
        engine.dispose()


def _fail(engine: Engine, request: ParseRequest, message: str) -> None:
    _in(engine, jobs.fail, token=request.token, errors=errors_json({"files": message}))


def _limit(limits: ParseLimits, total_bytes: int) -> None:
    used_s = int(resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime)
    resource.setrlimit(resource.RLIMIT_CPU, (used_s + limits.cpu_s, used_s + limits.cpu_s + 5))
    memory = limits.memory_for(total_bytes, _address_space())
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory + MEMORY_HEADROOM))
    signal.signal(signal.SIGXCPU, _cpu_exceeded)


def _address_space() -> int:
    """The bytes of address space this process holds (Linux; 0 where /proc does not say)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * resource.getpagesize()


def _lift_memory_limit() -> None:
    """Up to the hard limit: room to report the failure."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _cpu_exceeded(_signum: int, _frame: object) -> None:
    raise CpuLimit()


class _Progress:
    """The importers' progress callback: bytes read, stored at most every PROGRESS_EVERY_S; raises Cancelled
    once the job is no longer parsing."""

    def __init__(self, engine: Engine, token: str):
        self.engine, self.token, self.read_bytes, self.last = engine, token, 0, 0.0

    def __call__(self, n_bytes: int) -> None:
        self.read_bytes += n_bytes
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S:
            self.last = now
            if not _in(self.engine, jobs.record_progress, token=self.token, read_bytes=self.read_bytes):
                raise Cancelled()


def submit(session: Session, engine: Engine, request: ParseRequest, folder: Path, form: dict[str, Any]) -> ParseHandle:
    """Store the job (committed, so the process and every other worker see it), then start its parse."""
    total = sum(path.stat().st_size for _, path in request.files)
    jobs.add_job(session.connection(), token=request.token, campaign_id=request.campaign_id, total_bytes=total,
                 form=json.dumps(form))
    session.commit()
    return start_parse(engine, request, folder)
