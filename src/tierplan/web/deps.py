"""Dependencies as Annotated aliases, defined once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlmodel import Session

from tierplan.config import Settings
from tierplan.db.engine import Sessions, new_session
from tierplan.models.errors import FormInvalid
from tierplan.models.plan_rows import CampaignPublic
from tierplan.services import snapshots
from tierplan.services.campaigns import get_campaign


async def body_first(request: Request) -> None:
    """Read a change's body (bounded by the body limit) before its writer session begins: a client trickling its
    body holds no write lock meanwhile. The body is kept on the request for the endpoint to parse."""
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        await request.body()


def get_session(request: Request, _body: Annotated[None, Depends(body_first)]) -> Iterator[Session]:
    """The request's session; a POST, PUT, PATCH or DELETE gets a writer's (BEGIN IMMEDIATE on SQLite), once its
    body has arrived. After the request, the changes it committed get their figures in the plan's history
    (outside its transaction)."""
    write = request.method not in ("GET", "HEAD", "OPTIONS")
    with new_session(request.app.state.engine, write=write) as session:
        yield session
    snapshots.settle_pending(request.app.state.engine, session)


def known_query(request: Request) -> None:
    """An API operation refuses a query parameter it does not declare (422 naming it): `?regmie=batch 1` is a
    typo to point at, not a filter to drop without a word."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    declared = _query_names(dependant)
    unknown = [name for name in dict.fromkeys(request.query_params) if name not in declared]
    if unknown:
        raise FormInvalid({name[:100]: "not a parameter of this operation (it takes: "
                           f"{', '.join(sorted(declared)) or 'none'})" for name in unknown[:10]})


def _query_names(dependant: Any) -> set[str]:
    return {p.alias for p in dependant.query_params}.union(*(_query_names(d) for d in dependant.dependencies))


def get_sessions(request: Request) -> Sessions:
    """For a use case that opens its own sessions: reads without the write lock, then a short write."""
    return Sessions(request.app.state.engine)


def user_of(request: Request) -> str:
    """The logged-in user the request comes from ("" in single-user mode, when nobody is registered)."""
    return str(request.scope.get("state", {}).get("user") or "")


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def is_htmx(request: Request) -> bool:
    """True for an htmx request that wants a fragment (not a history restore, which needs the page)."""
    return (
        request.headers.get("HX-Request") == "true"
        and request.headers.get("HX-History-Restore-Request") != "true"
    )


def get_clock(request: Request) -> Callable[[], datetime]:
    clock: Callable[[], datetime] = request.app.state.clock
    return clock


def now(clock: Annotated[Callable[[], datetime], Depends(get_clock)]) -> datetime:
    return clock()


def utc_now() -> datetime:
    return datetime.now(UTC)


SessionDep = Annotated[Session, Depends(get_session)]
SessionsDep = Annotated[Sessions, Depends(get_sessions)]


def campaign_of_path(campaign_id: int, session: SessionDep) -> CampaignPublic:
    """The campaign the path names; NotFound (a 404) when there is none."""
    return get_campaign(session, campaign_id)


CampaignDep = Annotated[CampaignPublic, Depends(campaign_of_path)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
IsHtmx = Annotated[bool, Depends(is_htmx)]
NowDep = Annotated[datetime, Depends(now)]
