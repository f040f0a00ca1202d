"""The JSON API's imports: the same preview and confirm services as the import page and `tierplan import`."""

from __future__ import annotations

import json
import secrets
import shutil
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Header, Request, Response, UploadFile
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from tierplan.db import jobs, repo
from tierplan.models.errors import Conflicting, FormInvalid
from tierplan.models.fields import DATE_PATTERN, LARGEST, SMALLEST, validated
from tierplan.models.forms import idempotency_key
from tierplan.models.measurements import ImportOptionsForm, ImportRecordOut
from tierplan.planning.model import MeasurementKind
from tierplan.services.campaigns import get_campaign
from tierplan.services.import_confirm import batch_imported, confirm_import, imports_of, undo_import
from tierplan.services.import_jobs import drop_job
from tierplan.services.import_prototypes import unknown_key
from tierplan.services.imports import Preview, import_options, import_problems
from tierplan.services.parse_jobs import ParseLimits, ParseRequest, submit
from tierplan.services.plan import plan_of
from tierplan.views.gates import TierGatesOut, summary_of
from tierplan.web.deps import CampaignDep, NowDep, SessionDep, SessionsDep, SettingsDep, known_query, user_of
from tierplan.web.problems import PROBLEM_RESPONSES
from tierplan.web.uploads import save_uploads

router = APIRouter(prefix="/api", responses=PROBLEM_RESPONSES, tags=["imports"], dependencies=[Depends(known_query)])


class ImportResult(BaseModel):
    batch: str | None = Field(description="the import's batch (undo it with DELETE); null for a dry run")
    dry_run: bool
    replayed: bool = Field(False, description="the Idempotency-Key was seen before: nothing new was stored, and "
                                              "this answers with the first import's batch")
    preview: dict[str, Any] = Field(description="what the files hold and what the import changes")
    problems: list[str] = Field(description="what stops the import (a dry run lists them; a real one answers 422)")
    gates: list[TierGatesOut] = Field(default_factory=list, description=(
        "the gates the import's runs decided (they are among the runs a gate judged), judged with them stored; a "
        "dry run: the gates on the runs' regimes and metrics as they stand"))
    exit_code: int = Field(0, description="those gates' verdict as `tierplan gates` gives it: 0 pass, 1 a gate "
                                          "fails, 3 one is pending or inconclusive")


def _shown(preview: Preview) -> dict[str, Any]:
    """The preview as the API gives it: the server's own files (the uploads as saved, the values to import) left
    out."""
    shown = {k: v for k, v in asdict(preview).items() if k != "rows_path"}
    shown["files"] = [{k: v for k, v in f.items() if k != "path"} for f in shown["files"]]
    return shown


def _utc(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


@router.post("/campaigns/{campaign_id:id}/imports", response_model=ImportResult, status_code=201)
async def post_import(
    request: Request, campaign_id: int, sessions: SessionsDep, settings: SettingsDep, now: NowDep,
    files: Annotated[list[UploadFile], File(description="benchmark results or profiles; the format is read", min_length=1)],
    regime: Annotated[str | None, Form(description="the regime (benchmarks: default by concurrency)")] = None,
    step_ms: Annotated[float | None, Form(ge=SMALLEST, le=LARGEST,
                                          description="profiles: the measured step time in ms")] = None,
    steps: Annotated[int | None, Form(ge=1, le=2**31 - 1, description="profiles: steps the trace covers")] = None,
    kind: Annotated[MeasurementKind, Form(description="benchmarks: baseline or gate check")] = MeasurementKind.BASELINE,
    add_regimes: Annotated[bool, Form(description=(
        "benchmarks: a regime for each run's concurrency none has (a sweep), workload and target assumed"))] = False,
    includes: Annotated[str | None, Form(description="comma-separated intervention keys the runs include")] = None,
    measured_at: Annotated[datetime | None, Form(description="when undated runs were measured (UTC)",
                                                 json_schema_extra={"pattern": DATE_PATTERN})] = None,
    exclude_passes: Annotated[int, Form(ge=0, le=10_000, description="traces: leave out the first N passes")] = 0,
    prototype_of: Annotated[str | None, Form(max_length=50, description=(
        "the key of the intervention a prototype of which ran: the trace or benchmark becomes its evidence, not "
        "the regime's own history"))] = None,
    confirm: Annotated[bool, Form(description="import values the checks flag as unlikely")] = False,
    dry_run: Annotated[bool, Form(description="preview only: write nothing, list every problem")] = False,
    key: Annotated[str | None, Header(alias="Idempotency-Key", description=(
        "8-64 letters, digits or dashes; it becomes the import's batch, so a retry with the same key stores "
        "nothing and answers with the first import (tierplan push sends a hash of the campaign, options and "
        "files)"))] = None,
    response: Response = None,  # type: ignore[assignment]
) -> ImportResult:
    """Import benchmark results or a profile in one transaction, or preview it (`dry_run`), and say what the gates
    on its regimes and metrics make of it."""
    keys = [k.strip() for k in includes.split(",") if k.strip()] if includes is not None else None
    with sessions.reader() as session:
        get_campaign(session, campaign_id)  # a 404 before the files are saved
        known = {i.key for i in repo.interventions_of(session, campaign_id=campaign_id)}
        regimes = [r.name for r in repo.regimes_of(session, campaign_id=campaign_id)]
    if regime and regime not in regimes:
        raise Conflicting({"regime": f"unknown regime {regime!r}; this campaign has: {', '.join(regimes)}"})
    unknown = [k for k in keys or [] if k not in known]
    if unknown:  # before a byte is stored: a run must not be recorded as including nothing by a typo
        raise Conflicting({"includes": f"no intervention {', '.join(unknown)} in this campaign (it has "
                                       f"{', '.join(sorted(known)) or 'none'})"})
    if prototype_of and (problem := unknown_key(known, prototype_of.strip())) is not None:
        raise Conflicting({"prototype_of": problem})  # before a byte is stored, as for `includes`
    token = secrets.token_hex(16)
    batch = idempotency_key(key) or secrets.token_hex(16)
    folder = Path(settings.upload_dir) / token
    try:
        saved = await save_uploads(files, folder, settings.max_upload_mb * 1024 * 1024)
        options = import_options(validated(ImportOptionsForm, {
            "regime": regime, "step_ms": step_ms, "steps": steps, "kind": kind, "includes": keys,
            "measured_at": measured_at, "exclude_passes": exclude_passes, "add_regimes": add_regimes,
            "prototype_of": prototype_of}))
        if not saved:
            raise FormInvalid({"files": "choose at least one file"})
        parse = ParseRequest(settings.database_url, token, campaign_id, saved, options, now, ParseLimits.of(settings),
                             folder)
        with sessions.writer() as session:
            handle = submit(session, request.app.state.engine, parse, folder, {})
        await run_in_threadpool(handle.wait)
        with sessions.reader() as session:
            job = jobs.job_of(session.connection(), token=token)
        if job is None or job.state != "done" or job.preview is None:
            raise FormInvalid(json.loads(job.errors) if job is not None else {"files": "the upload was cancelled"})
        preview = Preview.from_json(job.preview)
        problems = import_problems(preview, measured_at=measured_at, confirmed=confirm)
        touched = {(s["regime"], s["metric"]): (_utc(s["first_at"]), _utc(s["last_at"]))
                   for s in preview.series if s["first_at"]}
        if dry_run:
            response.status_code = 200
            with sessions.reader() as session:
                gates = summary_of(plan_of(session, campaign_id=campaign_id)).only(
                    lambda g: (g.regime, g.metric) in touched)
            return ImportResult(batch=None, dry_run=True, preview=_shown(preview), problems=problems,
                                gates=list(gates.tiers), exit_code=gates.exit_code())
        with sessions.reader() as session:
            replayed = batch_imported(session, campaign_id, batch)
        records = await run_in_threadpool(confirm_import, sessions, campaign_id, preview, now=now,
                                          batch=batch, measured_at=measured_at, confirmed=confirm,
                                          by=user_of(request))
        with sessions.reader() as session:
            gates = summary_of(plan_of(session, campaign_id=campaign_id), touched=touched)
        return ImportResult(batch=records[0].batch, dry_run=False, replayed=replayed, preview=_shown(preview),
                            problems=[], gates=list(gates.tiers), exit_code=gates.exit_code())
    finally:
        with sessions.writer() as session:
            drop_job(session, token)  # the API keeps no preview: a dry run is answered
        shutil.rmtree(folder, ignore_errors=True)


@router.get("/campaigns/{campaign_id:id}/imports", response_model=list[ImportRecordOut])
def list_imports(campaign_id: int, _campaign: CampaignDep, session: SessionDep) -> Any:
    """Every imported file, newest first; files imported together share a batch."""
    return imports_of(session, campaign_id)


@router.delete("/campaigns/{campaign_id:id}/imports/{batch}", status_code=204)
def delete_import(request: Request, campaign_id: int, _campaign: CampaignDep, batch: str, session: SessionDep,
                  now: NowDep) -> Response:
    """Undo an import: its files and everything they wrote."""
    undo_import(session, campaign_id, batch, now=now, by=user_of(request))
    return Response(status_code=204)
