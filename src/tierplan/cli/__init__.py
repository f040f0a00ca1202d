"""The `tierplan` command: serve, migrate, demo, export, import, gates, push.

Exit codes: 0 done, 1 the command failed (a bad file, an unknown campaign, an import that would fail),
2 the command line itself is wrong (typer's usage errors); `gates` and `push` exit 3 when a gate is pending or
inconclusive (tierplan/cli/ci.py).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tierplan import __version__
from tierplan.config import get_settings

FAILED = 1  # the command ran and failed; 2 (usage) comes from typer

app = typer.Typer(
    name="tierplan",
    help="Honest tiered roadmaps for making an LLM serve faster on given GPUs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> typer.Exit:
    """Say what went wrong on standard error; the caller raises the returned Exit."""
    err.print(f"[bold red]tierplan:[/] {message}", markup=True)
    return typer.Exit(FAILED)


def _show_version(value: bool) -> None:
    if value:
        out.print(f"tierplan {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Honest tiered roadmaps for making an LLM serve faster on given GPUs.

    The database is TIERPLAN_DATABASE_URL (default: var/tierplan.db under the current folder).
    """


def _migrate(url: str) -> None:
    from tierplan.db.migrate import upgrade_to_head

    upgrade_to_head(url)


@app.command()
def migrate() -> None:
    """Bring the database to the newest schema."""
    url = get_settings().database_url
    _migrate(url)
    out.print(f"database at head: {url}")


@app.command()
def demo() -> None:
    """Migrate, then load the reference campaign (docs/DOMAIN.md) as a new campaign."""
    from tierplan.db.engine import make_engine, new_session
    from tierplan.services.demo import load_demo
    from tierplan.services.snapshots import settle_pending

    url = get_settings().database_url
    _migrate(url)
    engine = make_engine(url)
    try:
        with new_session(engine, write=True) as session:
            campaign_id = load_demo(session, now=datetime.now(UTC)).id
        settle_pending(engine, session)
    finally:
        engine.dispose()
    out.print(f"loaded the reference campaign as campaign {campaign_id}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, max=64, help="Worker processes (PostgreSQL; SQLite takes one).")] = 1,
) -> None:
    """Migrate, load the demo campaign into an empty database, and serve the web app."""
    import uvicorn

    from tierplan.main import create_app

    settings = get_settings()
    _migrate(settings.database_url)
    if host not in ("127.0.0.1", "localhost", "::1") and not _has_users(settings.database_url):
        raise fail(f"refusing to serve on {host} with no users: anyone who reaches the port could change "
                   "everything. Add one first: tierplan user add NAME (then a login is needed to change the plan)")
    out.print(f"tierplan on http://{host}:{port} (database {settings.database_url}, {workers} worker(s))")
    if workers > 1:  # each worker builds its app from the environment, as this process did
        uvicorn.run("tierplan.main:create_app", factory=True, host=host, port=port, workers=workers, log_level="info")
    else:
        uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


def _has_users(url: str) -> bool:
    from tierplan.db import accounts
    from tierplan.db.engine import make_engine, new_session

    engine = make_engine(url)
    try:
        with new_session(engine) as session:
            return accounts.any_user(session)
    finally:
        engine.dispose()


@app.command()
def export(
    campaign_id: Annotated[int, typer.Argument(help="The campaign's id (its number in the page's address).")],
    out_path: Annotated[str, typer.Option("--out", help="File to write, or - for standard output.")],
    as_json: Annotated[bool, typer.Option("--json", help="Write the backup of every row (restore it with "
                                                          "import-campaign) instead of the markdown roadmap.")] = False,
) -> None:
    """Write a campaign's roadmap as markdown, or its backup as JSON."""
    import json

    from tierplan.db.engine import make_engine, new_session
    from tierplan.exporters.markdown import render_roadmap
    from tierplan.models.errors import NotFound
    from tierplan.services.backup import export_campaign
    from tierplan.services.plan import plan_of
    from tierplan.views.plan import plan_view

    engine = make_engine(get_settings().database_url)
    try:
        with new_session(engine) as session:
            try:
                if as_json:
                    text = json.dumps(export_campaign(session, campaign_id), indent=1, ensure_ascii=False) + "\n"
                else:
                    text = render_roadmap(plan_view(plan_of(session, campaign_id=campaign_id), ranked=True),
                                          generated_at=datetime.now(UTC))
            except NotFound as exc:
                raise fail(str(exc)) from None
    finally:
        engine.dispose()
    if out_path == "-":
        sys.stdout.write(text)
    else:
        Path(out_path).write_text(text, encoding="utf-8")
        out.print(f"wrote {out_path}")


@app.command("import-campaign")
def import_campaign_command(
    path: Annotated[Path, typer.Argument(help="A backup written by `tierplan export ID --json --out FILE`.",
                                         exists=True, dir_okay=False, readable=True)],
) -> None:
    """Restore a campaign backup as a new campaign (every row, new ids); nothing is written if any row is bad."""
    import json

    from tierplan.db.engine import make_engine, new_session
    from tierplan.models.errors import FormInvalid
    from tierplan.services.backup import import_campaign

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise fail(f"{path.name}: not JSON ({exc})") from None
    url = get_settings().database_url
    _migrate(url)
    engine = make_engine(url)
    try:
        with new_session(engine, write=True) as session:
            try:
                campaign = import_campaign(session, document)
            except FormInvalid as exc:
                raise fail(f"{path.name}: {exc.errors['file']}") from None
            out.print(f"restored {campaign.name!r} as campaign {campaign.id}")
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return its exit code (usage errors: 2, from typer)."""
    from sqlalchemy.exc import SQLAlchemyError

    from tierplan.cli import ci, imports, users  # noqa: F401  (register `gates`, `push`, `import`, `user` and `token`)

    try:
        app(args=argv, prog_name="tierplan")
    except SQLAlchemyError as exc:
        from tierplan.db.migrate import database_error

        err.print(database_error(get_settings().database_url, exc))
        return FAILED
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else FAILED)
    return 0
