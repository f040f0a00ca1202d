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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
