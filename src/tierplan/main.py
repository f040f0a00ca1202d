"""The application factory."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DataError, IntegrityError, OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from tierplan import __version__
from tierplan.config import Settings, get_settings
from tierplan.db.engine import make_engine
from tierplan.models.errors import Conflicting, FormInvalid, NotFound, Stale
from tierplan.models.fields import field_errors
from tierplan.planning.model import PlanningError
from tierplan.services.import_jobs import clear_abandoned
from tierplan.web import (
    account_pages,
    api,
    api_imports,
    api_rows,
    auth,
    calibration_pages,
    editor_pages,
    history_pages,
    import_pages,
    inline_pages,
    pages,
    spec_pages,
    tokens,
)
from tierplan.web.auth import AuthMiddleware
from tierplan.web.body_limit import BodyLimitMiddleware
from tierplan.web.deps import utc_now
from tierplan.web.security import SecurityMiddleware
from tierplan.web.templating import make_templates, render

log = logging.getLogger("tierplan")


def create_app(settings: Settings | None = None, clock=utc_now) -> FastAPI:
    """Build the app on `settings` (default: from the environment); `clock` gives aware UTC datetimes."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if settings.load_demo_on_empty:
            load_demo_if_empty(app.state.engine, clock())
        removed = clear_abandoned(app.state.engine, Path(settings.upload_dir))
        if removed:
            log.warning("removed %d abandoned upload(s) older than a day", len(removed))
        yield
        app.state.engine.dispose()
        app.state.revision_engine.dispose()

    app = FastAPI(
        lifespan=lifespan,
        title="tierplan",
        version=__version__,
        description="Honest tiered roadmaps for making an LLM serve faster on given GPUs.",
        docs_url=None,  # served below from the vendored Swagger UI, so /docs works offline
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine = make_engine(settings.database_url)
    # the plan page reads the revision on the event loop: from its own one connection, never from the pool the
    # request threads share (waiting there would stall the loop, and with it every request holding a connection)
    app.state.revision_engine = make_engine(settings.database_url, pool_size=1, max_overflow=0)
    app.state.templates = make_templates(str(settings.templates_dir), app)
    app.state.clock = clock
    app.state.page_cache = {}  # rendered plan pages by ETag (tierplan/web/pages.py)
    app.mount("/static", StaticFiles(directory=settings.static_dir), name="static")
    app.include_router(api.router)
    app.include_router(api_rows.router)
    app.include_router(api_imports.router)
    app.include_router(pages.router)
    app.include_router(spec_pages.router)
    app.include_router(import_pages.router)
    app.include_router(history_pages.router)
    app.include_router(calibration_pages.router)
    app.include_router(inline_pages.router)
    app.include_router(editor_pages.router)
    app.include_router(auth.router)
    app.include_router(tokens.router)
    app.include_router(account_pages.router)

    @app.get("/healthz", tags=["health"])
    def healthz() -> dict[str, str]:
        """Liveness: the server answers."""
        return {"status": "ok"}

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> RedirectResponse:
        """Browsers that ask for /favicon.ico get the SVG icon the pages link."""
        return RedirectResponse(app.url_path_for("static", path="favicon.svg"), status_code=301)

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request):
        """The API's interactive documentation, from static/vendor/swagger-ui (npm swagger-ui-dist)."""
        return render(request, "docs.html", {"openapi_url": app.openapi_url})

    _install_error_pages(app)
    app.add_middleware(BodyLimitMiddleware)
    app.add_middleware(AuthMiddleware)
    app.add_middleware(SecurityMiddleware)  # added last, so it runs first: a cross-site request never gets further
    return app


def load_demo_if_empty(engine, now) -> None:
    """First start: an empty (migrated) database gets the reference campaign, once however many servers start
    together (they take turns, and the later ones find it there)."""

    from tierplan.db import repo
    from tierplan.db.engine import new_session
    from tierplan.db.locks import exclusive
    from tierplan.services.demo import load_demo
    from tierplan.services.snapshots import settle_pending

    try:
        with exclusive(engine.url.render_as_string(hide_password=False), "demo"), \
                new_session(engine, write=True) as session:
            if repo.count_campaigns(session) == 0:
                campaign = load_demo(session, now=now)
                log.warning("empty database: loaded the reference campaign as campaign %s", campaign.id)
        settle_pending(engine, session)  # once the session holds no lock
    except SQLAlchemyError as exc:
        from tierplan.db.migrate import database_error

        log.error("%s", database_error(engine.url.render_as_string(hide_password=True), exc))


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api") or request.url.path == "/healthz"


def _error_page(request: Request, status: int, title: str, message: str):
    if _wants_json(request):
        return JSONResponse({"detail": message}, status_code=status)
    return render(request, "error.html", {"title": title, "message": message}, status=status)


def _status_of(exc: FormInvalid) -> int:
    return 409 if isinstance(exc, Conflicting) else 422


def _install_error_pages(app: FastAPI) -> None:
    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound):
        return _error_page(request, 404, "Not found", str(exc))

    @app.exception_handler(FormInvalid)
    async def form_invalid(request: Request, exc: FormInvalid):
        if _wants_json(request):
            return JSONResponse({"detail": "invalid input", "errors": exc.errors, "confirmable": exc.confirmable},
                                status_code=_status_of(exc))
        return _error_page(request, _status_of(exc), "Invalid input", str(exc))

    @app.exception_handler(RequestValidationError)
    async def request_invalid(request: Request, exc: RequestValidationError):
        errors = field_errors(exc.errors())
        if _wants_json(request):
            return JSONResponse({"detail": "invalid input", "errors": errors, "confirmable": False}, status_code=422)
        return _error_page(request, 422, "Invalid input", "; ".join(f"{k}: {v}" for k, v in errors.items()))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        message = "No such page." if exc.status_code == 404 else str(exc.detail)
        return _error_page(request, exc.status_code, "Not found" if exc.status_code == 404 else "Error", message)

    @app.exception_handler(Stale)
    async def stale(request: Request, exc: Stale):
        if _wants_json(request):  # If-Match named an older version
            return JSONResponse({"detail": str(exc), "version": exc.version}, status_code=412)
        return _error_page(request, 409, "Changed meanwhile", f"{exc}; nothing was saved. Open it again to see "
                           "the change, then make yours.")

    @app.exception_handler(DataError)
    @app.exception_handler(IntegrityError)
    async def refused_by_database(request: Request, exc: Exception):
        # the models bound every field by its column; this is the database's last word, never a 500
        log.warning("the database refused a write on %s: %s", request.url.path, exc)
        return _error_page(request, 422, "Invalid input",
                           "The database refused a value (too long, out of range, or a row that changed meanwhile); "
                           "nothing was saved.")

    @app.exception_handler(OperationalError)
    async def database_busy(request: Request, exc: OperationalError):
        log.warning("database unavailable on %s: %s", request.url.path, exc)
        response = _error_page(request, 503, "Busy", "The database is busy or unreachable; nothing was saved. "
                               "Try again in a moment.")
        response.headers["Retry-After"] = "2"
        return response

    @app.exception_handler(PlanningError)
    async def inconsistent_rows(request: Request, exc: PlanningError):
        # the forms and the API check every row before it is saved; a row written before a check existed, or by
        # hand, still says what is wrong with it instead of a 500
        log.warning("stored rows the core refuses on %s: %s", request.url.path, exc)
        return _error_page(request, 409, "The stored plan is inconsistent",
                           f"A stored row breaks a rule of the plan: {exc}. Edit that row to go on.")

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):
        log.exception("unexpected error on %s", request.url.path)
        return _error_page(request, 500, "Something went wrong", "The server hit an error; it has been logged.")
