"""The `tierplan` command: serve, migrate, demo, export."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from app.config import get_settings


def _migrate(url: str) -> None:
    from app.db.migrate import upgrade_to_head

    upgrade_to_head(url)


def _load_demo(url: str) -> int:
    from app.db.engine import make_engine, new_session
    from app.services.demo import load_demo

    engine = make_engine(url)
    try:
        with new_session(engine) as session:
            return load_demo(session, now=datetime.now(UTC)).id
    finally:
        engine.dispose()


def cmd_migrate(args) -> int:
    url = get_settings().database_url
    _migrate(url)
    print(f"database at head: {url}")
    return 0


def cmd_demo(args) -> int:
    url = get_settings().database_url
    _migrate(url)
    campaign_id = _load_demo(url)
    print(f"loaded the reference campaign as campaign {campaign_id}")
    return 0


def cmd_serve(args) -> int:
    import uvicorn

    from app.main import create_app

    settings = get_settings()
    _migrate(settings.database_url)  # the app then loads the demo into an empty database
    print(f"tierplan on http://{args.host}:{args.port} (database {settings.database_url})")
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0


def cmd_export(args) -> int:
    from app.db.engine import make_engine, new_session
    from app.exporters.markdown import render_roadmap
    from app.services.errors import NotFound
    from app.services.report import build_plan

    engine = make_engine(get_settings().database_url)
    with new_session(engine) as session:
        try:
            plan = build_plan(session, args.campaign_id)
        except NotFound as exc:
            print(f"tierplan export: {exc}", file=sys.stderr)
            return 2
        text = render_roadmap(plan, generated_at=datetime.now(UTC))
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


class Progress:
    """A one-line progress bar on stderr for large files."""

    def __init__(self, total_bytes: int):
        self.total, self.done, self.shown = max(total_bytes, 1), 0, -1

    def __call__(self, n_bytes: int) -> None:
        self.done += n_bytes
        percent = min(100, self.done * 100 // self.total)
        if percent != self.shown and self.total > 8 << 20:
            self.shown = percent
            bar = "#" * (percent // 4)
            print(f"\r  reading [{bar:<25}] {percent:3d}%", end="", file=sys.stderr, flush=True)


def cmd_import(args) -> int:
    import secrets

    from app.db.engine import make_engine, new_session
    from app.importers.errors import ImportFileError
    from app.importers.kernel_csv import ColumnMap
    from app.services.errors import FormInvalid, NotFound
    from app.services.imports import ImportOptions, confirm_import, preview_import

    paths = [Path(f) for f in args.files]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(f"tierplan import: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    columns = ColumnMap(args.name_column, args.time_column, args.time_unit) if args.name_column else None
    includes = [k.strip() for k in args.includes.split(",") if k.strip()] if args.includes is not None else None
    options = ImportOptions(args.regime, args.step_ms, args.steps, columns, kind=args.kind, includes=includes,
                            measured_at=args.measured_at, exclude_passes=args.exclude_passes)
    engine = make_engine(get_settings().database_url)
    now = datetime.now(UTC)
    progress = Progress(sum(p.stat().st_size for p in paths))
    with new_session(engine) as session:
        try:
            from app.services.campaigns import get_campaign

            get_campaign(session, args.campaign)
            preview = preview_import(session, args.campaign, [(p.name, p) for p in paths], options, now=now,
                                     on_progress=progress)
            if progress.shown >= 0:
                print(file=sys.stderr)
            _print_preview(preview)
            if args.dry_run:
                blockers = _blockers(preview, args)
                print("dry run: nothing written" + ("; the import would fail: " + "; ".join(blockers) if blockers else ""))
                return 1 if blockers else 0
            records = confirm_import(session, args.campaign, preview, now=now, batch=secrets.token_hex(16),
                                     measured_at=args.measured_at, confirmed=args.confirm)
        except (ImportFileError, NotFound) as exc:
            print(f"tierplan import: {exc}", file=sys.stderr)
            return 2
        except FormInvalid as exc:
            hint = " (pass --confirm to import them as they are)" if exc.confirmable else ""
            print("tierplan import: " + "; ".join(exc.errors.values()) + hint, file=sys.stderr)
            return 2
    print(f"imported {len(records)} file(s) as batch {records[0].batch} (tierplan undo: the campaign's import page)")
    return 0


def _blockers(preview, args) -> list[str]:
    """What would stop the real import: duplicates, unresolved runs, a missing date, unconfirmed warnings."""
    out = [f"{f.name} was already imported" for f in preview.files if f.duplicate_of]
    out += preview.problems
    if preview.needs_date and args.measured_at is None:
        out.append("some runs carry no date: pass --measured-at")
    if preview.flagged and not args.confirm:
        out.append(f"{len(preview.flagged)} flagged value(s): pass --confirm")
    return out


def _print_preview(preview) -> None:
    from app.services.formatting import measured

    for f in preview.files:
        print(f"{f.name}: {f.format}, {f.size_bytes:,} bytes, sha256 {f.sha256[:12]}")
    if preview.named:
        print("  names " + ", ".join(preview.named))
    for line in preview.warnings:
        print(f"  check: {line}")
    if preview.kind == "measurements":
        for m in preview.measurements:
            print(f"  {m.regime:<16} {m.metric:<30} {measured(m.value):>12} {m.unit:<6} {m.where}")
    else:
        print(f"  profile of {preview.regime}: {preview.how}")
        for bucket, share in preview.shares:
            print(f"  {bucket:<16} {share * 100:6.1f}%")
        if preview.unmatched:
            print(f"  {len(preview.unmatched)} kernel(s) matched no rule and went to 'other'")
        draft = preview.draft
        if draft is not None and draft.passes:
            print(f"  {draft.steps} decode steps ({draft.pass_method}): GPU busy {draft.gpu_busy_ms:.3f} ms, "
                  f"{draft.host_launches:.0f} launch calls, {draft.gpu_items:.0f} GPU items a step")
            for note in draft.pass_notes:
                print(f"  note: {note}")
    for line in preview.consequences:
        print(f"  would: {line}")
    for line in preview.problems:
        print(f"  problem: {line}")
    for line in preview.flagged:
        print(f"  flagged (needs --confirm): {line}")


def _utc(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date and time like 2026-12-01T14:30, got {text!r}") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tierplan", description="Honest tiered roadmaps for LLM serving speed.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="migrate, load the demo into an empty database, and serve")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=cmd_serve)
    sub.add_parser("migrate", help="bring the database to the newest schema").set_defaults(func=cmd_migrate)
    sub.add_parser("demo", help="load the reference campaign (DOMAIN.md)").set_defaults(func=cmd_demo)
    export = sub.add_parser("export", help="write a campaign's roadmap as markdown")
    export.add_argument("campaign_id", type=int)
    export.add_argument("--out", required=True, help="file to write, or - for standard output")
    export.set_defaults(func=cmd_export)
    imp = sub.add_parser("import", help="import benchmark results or profiles (format read from the content)")
    imp.add_argument("files", nargs="+", metavar="FILE")
    imp.add_argument("--campaign", type=int, required=True)
    imp.add_argument("--regime", help="the regime (benchmarks: default, match by max concurrency)")
    imp.add_argument("--step-ms", type=float, help="profiles: the measured step time in ms")
    imp.add_argument("--steps", type=int, help="profiles: how many steps the trace covers")
    imp.add_argument("--name-column", help="generic kernel CSV: the kernel-name column")
    imp.add_argument("--time-column", help="generic kernel CSV: the total-time column")
    imp.add_argument("--time-unit", default="ns", choices=("ns", "us", "ms", "s"))
    imp.add_argument("--kind", default="baseline", choices=("baseline", "gate check"),
                     help="benchmarks: a baseline starts the projection, a gate check only judges gates")
    imp.add_argument("--includes", help="benchmarks: comma-separated intervention keys the runs were taken with "
                                        "(default: those landed by each run's date; '' for none)")
    imp.add_argument("--measured-at", type=_utc, help="benchmarks: when undated runs were measured, ISO 8601 (UTC)")
    imp.add_argument("--exclude-passes", type=int, default=0, help="traces: leave out the first N forward passes")
    imp.add_argument("--confirm", action="store_true", help="import values the checks flag as unlikely")
    imp.add_argument("--dry-run", action="store_true", help="show the preview, write nothing")
    imp.set_defaults(func=cmd_import)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
