"""`tierplan import`: the web import's preview and confirm services, from the command line."""

from __future__ import annotations

import secrets
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, DownloadColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from tierplan.cli import app, err, fail, out
from tierplan.config import get_settings
from tierplan.models.errors import FormInvalid
from tierplan.models.measurements import ImportOptionsForm, TimeUnit
from tierplan.planning.model import MeasurementKind
from tierplan.services.imports import Preview

BIG_FILE_BYTES = 8 << 20  # a progress bar for reads above this
BIG_IMPORT_VALUES = 50_000  # and for storing more values than this


def _utc(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"expected a date and time like 2026-12-01T14:30, got {text!r}") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


@app.command("import")
def import_files(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=True, readable=True, help=(
        "Benchmark results or profiles, or a folder a tool wrote (its runs: a vllm bench sweep's run=N.json, "
        "AIPerf's profile_export_aiperf.json files); the format is read from each."))],
    campaign: Annotated[int, typer.Option(help="The campaign's id.")],
    regime: Annotated[str | None, typer.Option(
        help="The regime, by name. Benchmarks: default is the regime whose concurrency the run's matches.")] = None,
    step_ms: Annotated[float | None, typer.Option(help="Profiles: the measured step time in ms.")] = None,
    steps: Annotated[int | None, typer.Option(min=1, help="Profiles: how many steps the trace covers.")] = None,
    name_column: Annotated[str | None, typer.Option(help="Generic kernel CSV: the kernel-name column.")] = None,
    time_column: Annotated[str | None, typer.Option(help="Generic kernel CSV: the total-time column.")] = None,
    time_unit: Annotated[TimeUnit, typer.Option(help="Generic kernel CSV: the unit of the time column.")] = TimeUnit.NS,
    kind: Annotated[MeasurementKind, typer.Option(
        help="Benchmarks: a baseline starts the projection, a gate check only judges gates.")
    ] = MeasurementKind.BASELINE,
    includes: Annotated[str | None, typer.Option(
        help="Benchmarks: comma-separated intervention keys the runs were taken with "
             "(default: those landed by each run's date; '' for none).")] = None,
    measured_at: Annotated[datetime | None, typer.Option(
        parser=_utc, metavar="ISO-8601", help="Benchmarks: when undated runs were measured (UTC).")] = None,
    exclude_passes: Annotated[int, typer.Option(min=0, help="Traces: leave out the first N forward passes.")] = 0,
    prototype_of: Annotated[str, typer.Option(
        help="The key of the intervention a prototype of which ran: a trace of it (with --step-ms, the step it "
             "measured) derives its effects against the regime's own trace; a benchmark (with --regime) sizes the "
             "effects entered by its throughput. Either is the intervention's evidence, not the regime's runs.")] = "",
    add_regimes: Annotated[bool, typer.Option(
        "--add-regimes", help="Benchmarks: a regime for each run's concurrency none has (a sweep), its workload and "
                              "target assumed from its neighbours.")] = False,
    confirm: Annotated[bool, typer.Option("--confirm", help="Import values the checks flag as unlikely.")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Show the preview and every problem, write nothing; exit 1 if the import would fail.")
    ] = False,
) -> None:
    """Import benchmark results or profiles into a campaign: a preview first, then one transaction."""
    from tierplan.db.engine import Sessions, make_engine
    from tierplan.importers.errors import ImportFileError
    from tierplan.importers.folders import files_of
    from tierplan.models.errors import NotFound
    from tierplan.services.campaigns import get_campaign
    from tierplan.services.import_confirm import confirm_import
    from tierplan.services.imports import import_options, import_problems, preview_import

    keys = [k.strip() for k in includes.split(",") if k.strip()] if includes is not None else None
    try:
        named = files_of(files)
    except ValueError as exc:
        raise fail(str(exc)) from None
    try:
        options = import_options(ImportOptionsForm(
            regime=regime, step_ms=step_ms, steps=steps, kind=kind, includes=keys, measured_at=measured_at,
            exclude_passes=exclude_passes, add_regimes=add_regimes, prototype_of=prototype_of,
            name_column=name_column or "",
            time_column=time_column or "",
            time_unit=time_unit))
    except FormInvalid as exc:
        raise fail("; ".join(exc.errors.values())) from None
    engine = make_engine(get_settings().database_url)
    sessions = Sessions(engine)
    now = datetime.now(UTC)
    try:
        with tempfile.TemporaryDirectory(prefix="tierplan-import-") as rows_dir:
            try:
                with sessions.reader() as session:
                    get_campaign(session, campaign)
                    with _progress(sum(p.stat().st_size for _, p in named), "reading") as advance:
                        preview = preview_import(session, campaign, named, options, now=now,
                                                 rows_dir=Path(rows_dir), on_progress=advance)
                print_preview(preview)
                problems = import_problems(preview, measured_at=measured_at, confirmed=confirm)
                if dry_run:
                    _report_dry_run(problems)
                    return
                with _progress(preview.measurement_count, "storing", unit="values") as advance:
                    records = confirm_import(sessions, campaign, preview, now=now, batch=secrets.token_hex(16),
                                             measured_at=measured_at, confirmed=confirm, on_progress=advance)
            except (ImportFileError, NotFound) as exc:
                raise fail(str(exc)) from None
            except FormInvalid as exc:
                hint = " (pass --confirm to import them as they are)" if exc.confirmable else ""
                raise fail("; ".join(exc.errors.values()) + hint) from None
    finally:
        engine.dispose()
    out.print(f"imported {len(records)} file(s) as batch {records[0].batch} (undo: the campaign's import page)")


def _report_dry_run(problems: list[str]) -> None:
    if not problems:
        out.print("dry run: nothing written; the import would succeed")
        return
    out.print("dry run: nothing written; the import would fail: " + "; ".join(problems))
    raise typer.Exit(1)


class _progress:
    """A rich progress bar on standard error while a large file is read or many values stored; a no-op for small
    ones. `unit`: "bytes" (sizes shown as such) or a count's noun."""

    def __init__(self, total: int, what: str, unit: str = "bytes"):
        self.total, self.what, self.unit = total, what, unit
        self.bar: Progress | None = None

    def __enter__(self):
        small = BIG_FILE_BYTES if self.unit == "bytes" else BIG_IMPORT_VALUES
        if self.total <= small:
            return lambda n: None
        amount = DownloadColumn() if self.unit == "bytes" else MofNCompleteColumn()
        self.bar = Progress(TextColumn(self.what), BarColumn(), amount, TimeRemainingColumn(), console=err,
                            transient=True)
        self.bar.start()
        task = self.bar.add_task(self.what, total=self.total)
        return lambda n: self.bar.advance(task, n)

    def __exit__(self, *exc_info) -> None:
        if self.bar is not None:
            self.bar.stop()


def print_preview(preview: Preview) -> None:
    """What the import would write and change, as tables and lines on standard output."""
    for f in preview.files:
        out.print(f"{f.name}: {f.format}, {f.size_bytes:,} bytes, sha256 {f.sha256[:12]}")
    if preview.named:
        out.print("  names " + ", ".join(preview.named))
    for line in preview.warnings:
        out.print(f"  check: {line}")
    if preview.kind == "measurements":
        out.print(_measurement_table(preview))
    else:
        _print_profile(preview)
    for line in preview.consequences:
        out.print(f"  would: {line}")
    for line in preview.problems:
        out.print(f"  problem: {line}")
    for line in preview.flagged:
        out.print(f"  flagged (needs --confirm): {line}")


def _measurement_table(preview: Preview) -> Table:
    """A line a regime and metric: how many values, the first and the last (or each value, when few)."""
    from tierplan.text.formatting import measured

    table = Table(box=None, pad_edge=False, show_edge=False, title=f"{preview.measurement_count:,} values")
    if preview.measurement_count <= len(preview.measurements):
        for name, justify in (("regime", "left"), ("metric", "left"), ("value", "right"), ("unit", "left"),
                              ("from", "left")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for m in preview.measurements:
            table.add_row(m.regime, m.metric, measured(m.value), m.unit, m.where)
        return table
    for name, justify in (("regime", "left"), ("metric", "left"), ("values", "right"), ("first", "left"),
                          ("last", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in preview.series:
        table.add_row(s["regime"], s["metric"], f"{s['values']:,}", s["first_at"][:16].replace("T", " "),
                      s["last_at"][:16].replace("T", " "))
    return table


def _print_profile(preview: Preview) -> None:
    out.print(f"  profile of {preview.regime}: {preview.how}")
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("bucket")
    table.add_column("share", justify="right")
    for bucket, share in preview.shares:
        table.add_row(bucket, f"{share * 100:.1f}%")
    out.print(table)
    if preview.unmatched:
        out.print(f"  {len(preview.unmatched)} kernel(s) matched no rule and went to 'other'")
    draft = preview.draft
    if draft is not None and draft.passes:
        out.print(f"  {draft.steps} decode steps ({draft.pass_method}): GPU busy {draft.gpu_busy_ms:.3f} ms, "
                  f"{draft.host_launches:.0f} launch calls, {draft.gpu_items:.0f} GPU items a step"
                  + (f", host {draft.host_share * 100:.0f}% of the traced step apart from waits for the GPU"
                     if draft.host_share is not None else ""))
        for note in draft.pass_notes:
            out.print(f"  note: {note}")
