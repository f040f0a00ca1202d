"""`tierplan gates` and `tierplan push`: the gates as CI reads them, from the database or a running server.

Exit codes: 0 every hard gate passes, 1 a gate fails (with --strict, a warn gate too), 3 a gate is pending or
inconclusive, 2 the command line is wrong or names a campaign or tier that does not exist; a push the server
refuses, or a server that cannot be reached, exits 1.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from tierplan.cli import app, fail, out
from tierplan.cli.client import Client, ServerError
from tierplan.config import get_settings
from tierplan.planning.model import MeasurementKind
from tierplan.planning.regressions import MIN_SAMPLES
from tierplan.views.gate_reports import ReportFormat, render
from tierplan.views.gates import GateSummary, TierGatesOut, summary_of

TOKEN_ENV = "TIERPLAN_TOKEN"
USAGE = 2

Format = Annotated[ReportFormat, typer.Option("--format", help="text, json, markdown (a pull-request comment) or "
                                                              "junit (XML for CI test reports).")]
Strict = Annotated[bool, typer.Option("--strict", help="A warn gate that fails fails the run too (exit 1), and "
                                                       "any pending or inconclusive gate exits 3.")]
OutFile = Annotated[Path | None, typer.Option("--out", help="Write the report to this file (default: standard "
                                                            "output).", dir_okay=False)]
Server = Annotated[str | None, typer.Option(help="A running tierplan's URL (http://host:port): ask it through the "
                                                 "API instead of reading the database.")]
Token = Annotated[str | None, typer.Option(help=f"API token (default: ${TOKEN_ENV}); needed once the server has "
                                                "users.", show_default=False)]


def _emit(summary: GateSummary, how: ReportFormat, title: str, strict: bool, out_file: Path | None) -> None:
    report = render(summary, how, title=title, strict=strict)
    if out_file is None:
        sys.stdout.write(report)
    else:
        out_file.write_text(report, encoding="utf-8")
        out.print(f"wrote {out_file}: {summary.exit_code(strict) and 'not passing' or 'passing'}")
    raise typer.Exit(summary.exit_code(strict))


def _summary_of(tiers: list) -> GateSummary:
    return GateSummary(tuple(TierGatesOut.model_validate(t) for t in tiers))


@app.command()
def gates(
    campaign: Annotated[int, typer.Argument(help="The campaign's id.")],
    tier: Annotated[str | None, typer.Option(help="Only this tier's gates (its key, e.g. A).")] = None,
    how: Format = ReportFormat.TEXT,
    strict: Strict = False,
    out_file: OutFile = None,
    server: Server = None,
    token: Token = None,
) -> None:
    """Every gate's status and evidence; exit 0 when every hard gate passes, 1 when one fails, 3 when one is
    pending or inconclusive."""
    if server:
        client = Client(server, token or os.environ.get(TOKEN_ENV))
        try:
            body = client.get(f"/api/campaigns/{campaign}/gates/status", {"tier": tier} if tier else None)
            name = next((c["name"] for c in client.get("/api/campaigns") if c["id"] == campaign), f"campaign {campaign}")
        except ServerError as exc:
            raise (_usage(str(exc)) if exc.status == 404 else fail(str(exc))) from None
        _emit(_summary_of(body["tiers"]), how, name, strict, out_file)
    from tierplan.db.engine import make_engine, new_session
    from tierplan.models.errors import NotFound
    from tierplan.services.plan import plan_of

    engine = make_engine(get_settings().database_url)
    try:
        with new_session(engine) as session:
            try:
                plan = plan_of(session, campaign_id=campaign)
                summary = summary_of(plan, tier_key=tier)
            except NotFound as exc:
                raise _usage(str(exc)) from None
    finally:
        engine.dispose()
    _emit(summary, how, plan.name, strict, out_file)


def _usage(message: str) -> typer.Exit:
    """A campaign or tier the arguments name does not exist: exit 2, never a code CI reads as a gate's."""
    fail(message)
    return typer.Exit(USAGE)


def push_key(campaign: int, files: list[Path], fields: dict[str, str]) -> str:
    """The Idempotency-Key of a push: the same campaign, options and file contents give the same key."""
    digest = hashlib.sha256(f"tierplan-push\n{campaign}\n".encode())
    for name in sorted(fields):
        digest.update(f"{name}={fields[name]}\n".encode())
    for path in files:
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:48]


@app.command()
def push(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False, readable=True,
                                                help="Benchmark results (or a profile) as the tools wrote them.")],
    server: Annotated[str, typer.Option(help="The tierplan to push to (http://host:port).")],
    campaign: Annotated[int, typer.Option(help="The campaign's id.")],
    regime: Annotated[str | None, typer.Option(help="The regime, by name (default: by the run's concurrency).")] = None,
    includes: Annotated[str | None, typer.Option(
        help="Comma-separated intervention keys the run was taken with, e.g. A1,A2 (default: those landed by "
             "its date; '' for none).")] = None,
    kind: Annotated[MeasurementKind, typer.Option(
        help="A gate check judges gates only; a baseline also moves the projection.")] = MeasurementKind.GATE_CHECK,
    measured_at: Annotated[str | None, typer.Option(metavar="ISO-8601",
                                                    help="When undated runs were measured (UTC).")] = None,
    confirm: Annotated[bool, typer.Option("--confirm", help="Store values the checks flag as unlikely.")] = False,
    add_regimes: Annotated[bool, typer.Option(
        "--add-regimes", help="A regime for each run's concurrency none has (a sweep, for the capacity at SLO).")
    ] = False,
    prototype_of: Annotated[str | None, typer.Option(
        help="The key of the intervention a prototype of which ran (a branch's benchmark): the runs become its "
             "evidence, not the regime's history.")] = None,
    how: Format = ReportFormat.TEXT,
    strict: Strict = False,
    out_file: OutFile = None,
    token: Token = None,
) -> None:
    """Upload benchmark files to a running tierplan through its API (its importers), record what the run
    includes, and print the gates the new data decided; the exit code is theirs (0, 1 or 3). A retried push of
    the same files stores nothing twice."""
    fields = {"kind": kind.value, "confirm": "true" if confirm else "false",
              "add_regimes": "true" if add_regimes else "false"}
    for name, value in (("regime", regime), ("includes", includes), ("measured_at", measured_at),
                        ("prototype_of", prototype_of)):
        if value is not None:
            fields[name] = value
    client = Client(server, token or os.environ.get(TOKEN_ENV))
    try:
        body = client.post_files(f"/api/campaigns/{campaign}/imports", files, fields,
                                 headers={"Idempotency-Key": push_key(campaign, files, fields)})
    except ServerError as exc:
        raise (_usage(str(exc)) if exc.status == 404 else fail(str(exc))) from None
    stored = body["preview"].get("measurement_count", 0)
    how_stored = "already stored by an earlier push: nothing new" if body["replayed"] else f"{stored:,} values stored"
    if prototype_of and not body["replayed"]:
        how_stored += f" as the evidence of {prototype_of}'s prototype"
    print(f"pushed {', '.join(p.name for p in files)} to campaign {campaign}: {how_stored} "
          f"(batch {body['batch']})", file=sys.stderr)
    for warning in body["preview"].get("warnings", []):  # another model or GPU than the campaign's, say
        print(f"warning: {warning}", file=sys.stderr)
    summary = GateSummary(_summary_of(body["gates"]).tiers, partial=True)  # the gates these runs decided
    if not summary.tiers:
        print("no gate judges the regimes and metrics of these runs", file=sys.stderr)
    _emit(summary, how, f"campaign {campaign}", strict, out_file)


@app.command()
def regressions(
    campaign: Annotated[int, typer.Argument(help="The campaign's id.")],
    regime: Annotated[str | None, typer.Option(help="Only this regime's histories.")] = None,
    metric: Annotated[str | None, typer.Option(help="Only this metric's histories (e.g. output_tok_s).")] = None,
    min_samples: Annotated[int, typer.Option(min=2, max=1000, help="Runs each side of a change.")] = MIN_SAMPLES,
    min_change: Annotated[float | None, typer.Option(
        min=0.01, max=1000, help="Smallest change reported, in % (default 5; 20 for std_* metrics).")] = None,
    how: Format = ReportFormat.TEXT,
    out_file: OutFile = None,
    server: Server = None,
    token: Token = None,
) -> None:
    """Steps up or down in the measurement histories, each with the first run after it and the size of the change
    with its interval; exit 0 when none is a regression, 1 when one is, 3 when no history is long enough."""
    from tierplan.views.regressions import SeriesOut, exit_code, searched_out
    from tierplan.views.regressions import render as render_changes

    if server:
        query = {"min_samples": str(min_samples), **({"regime": regime} if regime else {}),
                 **({"metric": metric} if metric else {}),
                 **({"min_change_pct": str(min_change)} if min_change is not None else {})}
        try:
            body = Client(server, token or os.environ.get(TOKEN_ENV)).get(f"/api/campaigns/{campaign}/regressions",
                                                                          query)
        except ServerError as exc:
            raise (_usage(str(exc)) if exc.status == 404 else fail(str(exc))) from None
        series = [SeriesOut.model_validate(s) for s in body["series"]]
    else:
        from tierplan.db.engine import make_engine, new_session
        from tierplan.models.errors import NotFound
        from tierplan.services.regressions import changes_in

        engine = make_engine(get_settings().database_url)
        try:
            with new_session(engine) as session:
                try:
                    series = searched_out(changes_in(session, campaign, regime=regime, metric=metric, min_samples=min_samples,
                                            min_change=None if min_change is None else min_change / 100))
                except NotFound as exc:
                    raise _usage(str(exc)) from None
        finally:
            engine.dispose()
    report = render_changes(series, how, title=f"campaign {campaign}")
    if out_file is None:
        sys.stdout.write(report)
    else:
        out_file.write_text(report, encoding="utf-8")
    raise typer.Exit(exit_code(series))
