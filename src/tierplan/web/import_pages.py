"""Import pages: upload (or paste) -> preview -> confirm; the list of imports with undo; kernel rules."""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlmodel import Session

from tierplan.db import jobs, repo
from tierplan.db.job_tables import ImportJob
from tierplan.models.errors import FormInvalid, NotFound, Stale
from tierplan.models.fields import check_options, form_fields, parse_form
from tierplan.models.forms import Field, Form, raw_values, version_of
from tierplan.models.measurements import ImportConfirmForm, ImportOptionsForm, KernelRulesForm
from tierplan.models.plan_rows import CampaignPublic
from tierplan.services.campaigns import get_campaign
from tierplan.services.import_confirm import confirm_import, imports_of, undo_import
from tierplan.services.import_jobs import cancel_job, clear_abandoned, drop_job, end_if_silent
from tierplan.services.imports import Preview, import_options
from tierplan.services.kernel_rules import RULE_FIELDS, rules_form, save_rules
from tierplan.services.parse_jobs import ParseLimits, ParseRequest, submit
from tierplan.text import formatting as fmt
from tierplan.text.formatting import kernel_name, measured, timestamp
from tierplan.web.deps import CampaignDep, IsHtmx, NowDep, SessionDep, SessionsDep, SettingsDep, user_of
from tierplan.web.pages import redirect
from tierplan.web.templating import form_page, path_for, render
from tierplan.web.uploads import CHUNK, save_uploads

router = APIRouter(include_in_schema=False)


def import_fields(regimes: Iterable[Any], interventions: Iterable[Any]) -> tuple[Field, ...]:
    labelled = tuple((i.key, f"{i.key}: {i.title}") for i in interventions)
    return form_fields(ImportOptionsForm, {"regime": tuple((r.name, r.name) for r in regimes), "includes": labelled,
                                           "prototype_of": labelled})


CONFIRM_FIELDS = form_fields(ImportConfirmForm)
IMPORT_DEFAULTS = {"time_unit": "ns", "kind": "baseline"}


def _fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    return import_fields(repo.regimes_of(session, campaign_id=campaign_id),
                         repo.interventions_of(session, campaign_id=campaign_id))


def _page(request: Request, session: Session, campaign: CampaignPublic, form: Form, *, preview: Preview | None = None,
          token: str = "", htmx: bool = False, status: int = 200, error: str = "",
          confirm: Form | None = None) -> Response:
    records = [{"batch": r.batch, "file": r.file_name, "format": r.format, "size": f"{r.size_bytes:,} B",
                "sha": r.sha256[:12], "at": timestamp(r.imported_at), "summary": r.summary}
               for r in imports_of(session, campaign.id)]
    settings = request.app.state.settings
    context = {"campaign": campaign, "form": form, "preview": _preview_view(preview) if preview else None,
               "token": token, "records": records, "error": error, "max_upload_mb": settings.max_upload_mb,
               "confirm": confirm or Form(CONFIRM_FIELDS)}
    return render(request, "import.html", context, block="import_body" if htmx else None, status=status)


def _preview_view(preview: Preview) -> dict:
    launch = preview.draft.launch if preview.draft else {}  # Nsight Compute's figures of each kernel, in words
    return {
        "kind": preview.kind,
        "files": [{"name": f.name, "format": f.format, "size": fmt.size(f.size_bytes), "sha": f.sha256[:12],
                   "duplicate": f.duplicate_of} for f in preview.files],
        "measurements": [{"regime": m.regime, "metric": m.metric, "metric_text": fmt.metric(m.metric),
                          "value": fmt.number(m.value), "exact": measured(m.value), "unit": m.unit,
                          "where": m.where, "at": m.measured_at[:16].replace("T", " ")} for m in preview.measurements],
        "regime": preview.regime,
        "shares": [(b, fmt.share(s)) for b, s in preview.shares],
        "how": preview.how,
        "kernels": [{"name": kernel_name(n), "full_name": n, "bucket": b, "time": fmt.number(us / 1000, "ms"), "count": c,
                     "share": fmt.share(s), "launch": launch.get(n, "")} for n, b, us, c, s in preview.top_kernels],
        "launch": bool(launch),
        "unmatched": [(kernel_name(n), n) for n in preview.unmatched],
        "problems": preview.problems,
        "spec_decode": preview.spec_decode,
        "blocked": bool(preview.problems) or any(f.duplicate_of for f in preview.files),
        "consequences": preview.consequences,
        "warnings": preview.warnings,
        "flagged": preview.flagged,
        "named": preview.named,
        "needs_date": preview.needs_date,
        "measurement_kind": preview.measurement_kind,
        "prototype_of": preview.prototype_of,
        "steps": _steps_view(preview),
    }


def _steps_view(preview: Preview) -> dict | None:
    draft = preview.draft
    if draft is None or not draft.passes:
        return None
    idle = (f"{draft.step_ms - draft.gpu_busy_ms:.2f} ms ({(1 - draft.gpu_busy_ms / draft.step_ms) * 100:.0f}%) of the "
            f"measured {draft.step_ms:.4g} ms step" if draft.step_ms and draft.gpu_busy_ms is not None else "")
    return {
        "method": draft.pass_method, "notes": draft.pass_notes,
        "passes": [{"number": p["number"], "role": p["role"], "gpu_items": p["items"], "launches": p["launches"],
                    "busy": f"{p['busy_ms']:.3f} ms", "ratio": f"{p['ratio']:.2f}x",
                    "similarity": f"{p['similarity'] * 100:.0f}%"} for p in draft.passes],
        "busy": f"{draft.gpu_busy_ms:.3f} ms", "trace_idle": f"{draft.trace_idle_ms:.2f} ms", "idle": idle,
        "gpu_items": f"{draft.gpu_items:.0f}", "launches": f"{draft.host_launches:.0f}",
        "gap": f"{draft.gpu_gap_us:.2f} µs ({'measured between queued kernels' if draft.gap_measured else 'assumed: no kernel waited in a queue'})",  # noqa: E501
        "host": "" if draft.host_share is None else (f"{draft.host_share * 100:.0f}% of the traced step" + (
            f" ({draft.host_busy_ms:.3g} ms of the measured one)" if draft.host_busy_ms is not None else "")),
        "left_out": f"{draft.prefill_share * 100:.0f}%" if draft.prefill_share is not None else "",
        "steps": draft.steps,
    }


@router.get("/campaigns/{campaign_id:id}/import", name="import")
def import_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep) -> Response:
    return _page(request, session, campaign, Form(_fields(session, campaign_id), raw=dict(IMPORT_DEFAULTS)))


@router.post("/campaigns/{campaign_id:id}/import", name="upload")
async def upload(request: Request, campaign_id: int, sessions: SessionsDep, settings: SettingsDep, htmx: IsHtmx,
                 now: NowDep) -> Response:
    """Take the files and parse them in a process of its own: no database lock is held while the body arrives
    or while it parses; the job's row is the only write."""
    with sessions.reader() as session:
        campaign = get_campaign(session, campaign_id)
        fields = _fields(session, campaign_id)
    limit = settings.max_upload_mb * 1024 * 1024
    declared = int(request.headers.get("content-length") or 0)
    if declared > limit + CHUNK:
        form = Form(fields, raw=dict(IMPORT_DEFAULTS),
                    errors={"files": f"the upload is larger than {settings.max_upload_mb} MB"})
        with sessions.reader() as session:
            return _page(request, session, campaign, form, htmx=htmx, status=413)
    data = await request.form(max_files=64)
    raw = raw_values(fields, data)
    clear_abandoned(request.app.state.engine, Path(settings.upload_dir))
    token = secrets.token_hex(16)
    folder = Path(settings.upload_dir) / token
    try:
        values = parse_form(ImportOptionsForm, data)
        values.includes = values.includes or None  # none chosen on the page: each run's landed work
        check_options(values, {f.name: f.options for f in fields if f.name in ("regime", "includes")})
        files = await save_uploads(data.getlist("files"), folder, limit)
        if values.pasted:
            pasted = folder / "pasted-summary.txt"
            pasted.write_text(values.pasted, encoding="utf-8")
            files.append(("pasted summary block", pasted))
        if not files:
            raise FormInvalid({"files": "choose at least one file, or paste a summary block"})
        options = import_options(values)
    except FormInvalid as exc:
        shutil.rmtree(folder, ignore_errors=True)
        status = 413 if "larger than" in exc.errors.get("files", "") else 422
        with sessions.reader() as session:
            return _page(request, session, campaign, Form(fields, raw, exc.errors), htmx=htmx, status=status)
    parse = ParseRequest(settings.database_url, token, campaign_id, files, options, now, ParseLimits.of(settings),
                         folder)
    with sessions.writer() as session:
        handle = submit(session, request.app.state.engine, parse, folder, raw)
    if sum(path.stat().st_size for _, path in files) > settings.inline_parse_mb * 1024 * 1024:
        with sessions.reader() as session:
            return _parsing_page(request, session, campaign, _job(session, campaign_id, token), htmx)
    await run_in_threadpool(handle.wait)
    with sessions.writer() as session:  # a failed job is removed as its errors are shown
        return _parsed(request, session, campaign, _job(session, campaign_id, token), htmx)


def _job(session: Session, campaign_id: int, token: str) -> ImportJob:
    job = jobs.job_of(session.connection(), token=token) if token.isalnum() else None
    if job is None:
        raise NotFound("no such upload: it expired or was cancelled; upload the files again")
    if job.campaign_id != campaign_id:
        raise NotFound("this upload was previewed for another campaign")
    return job


def _parsed(request: Request, session: Session, campaign: CampaignPublic, job: ImportJob, htmx: bool) -> Response:
    """The page for a job whose parse ended: its preview, or its errors at their fields (and the job is gone)."""
    fields = _fields(session, campaign.id)
    raw = json.loads(job.form)
    if job.state == "failed":
        drop_job(session, job.token)
        errors = json.loads(job.errors)
        status = 413 if "larger than" in errors.get("files", "") else 422
        return _page(request, session, campaign, Form(fields, raw, errors), htmx=htmx, status=status)
    if job.state != "done" or job.preview is None:
        raise NotFound("this upload was cancelled or already imported: upload the files again")
    return _page(request, session, campaign, Form(fields, raw), preview=Preview.from_json(job.preview),
                 token=job.token, htmx=htmx)


def _parsing_page(request: Request, session: Session, campaign: CampaignPublic, job: ImportJob, htmx: bool) -> Response:
    percent = min(99, job.read_bytes * 100 // max(job.total_bytes, 1))
    progress = f"{percent}% of {job.total_bytes:,} bytes read"
    if job.state == "waiting":
        at_once = request.app.state.settings.max_parses
        ahead = jobs.waiting_ahead(session.connection(), token=job.token)
        progress = (f"Waiting: this server parses {at_once} upload{'s' if at_once != 1 else ''} at once"
                    + (f" and {ahead} more {'is' if ahead == 1 else 'are'} waiting before this one" if ahead else "")
                    + f" ({job.total_bytes:,} bytes to read)")
    context = {"campaign": campaign, "token": job.token, "percent": percent, "progress": progress,
               "waiting": job.state == "waiting"}
    return render(request, "import_parsing.html", context, block="import_body" if htmx else None)


@router.get("/campaigns/{campaign_id:id}/import/{token}/status", name="import_status")
def parse_status(request: Request, campaign_id: int, campaign: CampaignDep,
                 token: str, session: SessionDep, settings: SettingsDep,
                 htmx: IsHtmx, now: NowDep) -> Response:
    job = _job(session, campaign_id, token)
    if end_if_silent(session, job, ParseLimits.of(settings)):
        job = _job(session, campaign_id, token)
    if job.state in ("waiting", "parsing"):
        return _parsing_page(request, session, campaign, job, htmx)
    return _parsed(request, session, campaign, job, htmx)


@router.post("/campaigns/{campaign_id:id}/import/{token}/confirm", name="confirm_import")
async def confirm(request: Request, campaign_id: int, token: str, sessions: SessionsDep, settings: SettingsDep,
                  htmx: IsHtmx, now: NowDep) -> Response:
    """Write a previewed import: its values are checked before the write, and the write holds the lock for its
    rows alone."""
    with sessions.reader() as session:
        campaign = get_campaign(session, campaign_id)
        job = _job(session, campaign_id, token)
        fields = _fields(session, campaign_id)
    if job.state == "imported":  # a confirm sent again: the first one stored it
        return redirect(path_for(request.app, "plan", campaign_id=campaign_id), htmx)
    if job.state != "done" or job.preview is None:
        raise NotFound("this upload is not ready to import (still parsing, cancelled or failed)")
    preview = Preview.from_json(job.preview)
    data = await request.form()
    raw = raw_values(CONFIRM_FIELDS, data)
    try:
        values = parse_form(ImportConfirmForm, data)
        await run_in_threadpool(confirm_import, sessions, campaign_id, preview, now=now, batch=token,
                                measured_at=values.measured_at, confirmed=values.confirm, by=user_of(request),
                                job_token=token)
    except FormInvalid as exc:
        confirm_form = Form(CONFIRM_FIELDS, raw, exc.errors, confirmable=exc.confirmable)
        with sessions.reader() as session:
            return _page(request, session, campaign, Form(fields, dict(IMPORT_DEFAULTS)), preview=preview,
                         token=token, htmx=htmx, status=422, confirm=confirm_form)
    shutil.rmtree(Path(settings.upload_dir) / token, ignore_errors=True)
    return redirect(path_for(request.app, "plan", campaign_id=campaign_id), htmx)


@router.post("/campaigns/{campaign_id:id}/import/{token}/cancel", name="cancel_import")
def cancel(request: Request, campaign_id: int, token: str, session: SessionDep, settings: SettingsDep,
           htmx: IsHtmx) -> Response:
    """Cancel a parse under way (its process is stopped by whichever worker watches it) or a preview."""
    cancel_job(session, campaign_id, token, Path(settings.upload_dir))
    return redirect(path_for(request.app, "import", campaign_id=campaign_id), htmx)


@router.post("/campaigns/{campaign_id:id}/imports/{batch}/undo", name="undo_import")
def undo(request: Request, campaign_id: int, batch: str, session: SessionDep, htmx: IsHtmx, now: NowDep) -> Response:
    undo_import(session, campaign_id, batch, now=now, by=user_of(request))
    return redirect(path_for(request.app, "import", campaign_id=campaign_id), htmx)


@router.get("/campaigns/{campaign_id:id}/import/rules", name="kernel_rules")
def rules_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep) -> Response:
    return _rules_page(request, campaign, rules_form(session, campaign_id))


def _rules_page(request: Request, campaign: CampaignPublic, form: Form, htmx: bool = False,
                status: int = 200) -> Response:
    return form_page(request, campaign=campaign, form=form, title="Kernel → bucket rules", noun="rules",
                     action=path_for(request.app, "save_kernel_rules", campaign_id=campaign.id),
                     back=path_for(request.app, "import", campaign_id=campaign.id),
                     htmx=htmx, status=status)


@router.post("/campaigns/{campaign_id:id}/import/rules", name="save_kernel_rules")
async def save_rules_form(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep, htmx: IsHtmx,
                          now: NowDep) -> Response:
    data = await request.form()
    try:
        save_rules(session, campaign_id, parse_form(KernelRulesForm, data), seen_version=version_of(data.get("version")),
                   now=now, by=user_of(request))
    except FormInvalid as exc:
        return _rules_page(request, campaign, Form.rejected(RULE_FIELDS, data, exc), htmx, 422)
    except Stale:
        return _rules_page(request, campaign, Form.stale(rules_form(session, campaign_id), data), htmx, 409)
    return redirect(path_for(request.app, "import", campaign_id=campaign_id), htmx)
