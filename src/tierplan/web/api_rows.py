"""The JSON API's create, read, update and delete of every kind of row, on the same models and services as the
forms. (No `from __future__ import annotations`: FastAPI reads the generated handlers' body types at runtime.)"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Header, Request, Response

from tierplan.models.effects import ProfileCreate, ProfilePublic
from tierplan.models.errors import NotFound
from tierplan.models.forms import idempotency_key, version_of
from tierplan.models.plan_rows import CampaignCreate, CampaignPublic, CampaignUpdate
from tierplan.models.specs import HardwareSpecCreate, ModelSpecCreate
from tierplan.services import campaigns as campaign_service
from tierplan.services import editing, editing_specs, profiles
from tierplan.services.editing import Editor
from tierplan.services.editing_specs import spec_of, store_spec
from tierplan.services.editors import CAMPAIGN_EDITOR, ROW_EDITORS
from tierplan.services.editors import list_rows as rows_in
from tierplan.web.deps import CampaignDep, NowDep, SessionDep, known_query, user_of
from tierplan.web.problems import PROBLEM_RESPONSES, STALE_RESPONSES

router = APIRouter(prefix="/api", responses=PROBLEM_RESPONSES, dependencies=[Depends(known_query)])


IfMatch = Annotated[str | None, Header(description='the ETag of the version you read, e.g. "3"')]
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", description=(
    "8-64 letters, digits or dashes, new for each row: a retry with the same key stores nothing and answers with "
    "the row the first stored"))]


def etag_of(row: Any) -> str:
    """A row's ETag: its version, quoted."""
    return f'"{row.version}"'



@router.post("/campaigns", status_code=201, response_model=CampaignPublic, tags=["campaigns"])
def create_campaign(body: CampaignCreate, session: SessionDep, now: NowDep, key: IdempotencyKey = None) -> Any:
    """Create an empty campaign (regimes, tiers and interventions are added to it afterwards)."""
    return campaign_service.store_campaign(session, body, now=now, key=idempotency_key(key))


@router.get("/campaigns/{campaign_id:id}", response_model=CampaignPublic, tags=["campaigns"])
def read_campaign(campaign: CampaignDep, session: SessionDep, response: Response) -> Any:
    """The campaign's own fields and Monte Carlo settings."""
    response.headers["ETag"] = etag_of(campaign)
    return editing.read_row(session, CAMPAIGN_EDITOR, campaign.id, campaign.id)


@router.patch("/campaigns/{campaign_id:id}", response_model=CampaignPublic, tags=["campaigns"],
              responses=STALE_RESPONSES)
def update_campaign(request: Request, campaign_id: int, campaign: CampaignDep, body: CampaignUpdate,  # type: ignore[valid-type]
                    session: SessionDep, now: NowDep, response: Response, if_match: IfMatch = None) -> Any:
    """Change some of the campaign's fields; those left out keep their values. Send the ETag a read gave as
    If-Match: a campaign saved since answers 412."""
    saved = editing.save_changes(session, CAMPAIGN_EDITOR, campaign_id, campaign_id, body, now=now,
                                 seen_version=version_of(if_match), by=user_of(request))
    response.headers["ETag"] = etag_of(saved)
    return saved



@router.delete("/campaigns/{campaign_id:id}", status_code=204, tags=["campaigns"])
def delete_campaign(campaign_id: int, session: SessionDep) -> Response:
    """Delete the campaign and everything in it."""
    editing.delete(session, CAMPAIGN_EDITOR, campaign_id, campaign_id)
    return Response(status_code=204)


def _add_routes(editor: Editor) -> None:
    """List, create, read, update and delete routes for one kind of row."""
    kind, noun, tag = editor.kind, editor.noun, editor.kind
    base = f"/campaigns/{{campaign_id:id}}/{kind}"
    create_model, update_model, public_model = editor.create, editor.update, editor.public

    def list_rows(campaign_id: int, _campaign: CampaignDep, session: SessionDep) -> Any:
        return rows_in(session, editor, campaign_id)

    def create_row(request: Request, campaign_id: int, _campaign: CampaignDep,
                   body: Annotated[create_model, Body()], session: SessionDep, now: NowDep,  # type: ignore[valid-type]
                   key: IdempotencyKey = None) -> Any:
        return editing.create(session, editor, campaign_id, body, now=now, by=user_of(request),
                              key=idempotency_key(key))

    def read_row(campaign_id: int, row_id: int, session: SessionDep, response: Response) -> Any:
        row = editing.read_row(session, editor, campaign_id, row_id)
        response.headers["ETag"] = etag_of(row)
        return row

    def update_row(request: Request, campaign_id: int, row_id: int, body: Annotated[update_model, Body()],  # type: ignore[valid-type]
                   session: SessionDep, now: NowDep, response: Response, if_match: IfMatch = None) -> Any:
        saved = editing.save_changes(session, editor, campaign_id, row_id, body, now=now, seen_version=version_of(if_match),
                                     by=user_of(request))
        response.headers["ETag"] = etag_of(saved)
        return saved

    def delete_row(request: Request, campaign_id: int, row_id: int, session: SessionDep, now: NowDep) -> Response:
        editing.delete(session, editor, campaign_id, row_id, now=now, by=user_of(request))
        return Response(status_code=204)

    router.add_api_route(base, list_rows, methods=["GET"], response_model=list[public_model],  # type: ignore[valid-type]
                         tags=[tag],
                         name=f"list_{kind}", summary=f"List the {kind}",
                         description=f"Every {noun} of the campaign.")
    router.add_api_route(base, create_row, methods=["POST"], status_code=201, response_model=public_model,
                         tags=[tag], name=f"create_{noun}", summary=f"Create a {noun}",
                         description=f"{create_model.__doc__ or ''} The same fields and checks as the {noun} form.")
    router.add_api_route(f"{base}/{{row_id:id}}", read_row, methods=["GET"], response_model=public_model, tags=[tag],
                         name=f"read_{noun}", summary=f"Read a {noun}")
    router.add_api_route(f"{base}/{{row_id:id}}", update_row, methods=["PATCH"], response_model=public_model,
                         tags=[tag], name=f"update_{noun}", summary=f"Update a {noun}", responses=STALE_RESPONSES,
                         description="Fields left out keep their values; the result is checked as a whole. "
                                     "Send the ETag a read gave as If-Match: a row saved since answers 412.")
    router.add_api_route(f"{base}/{{row_id:id}}", delete_row, methods=["DELETE"], status_code=204, tags=[tag],
                         name=f"delete_{noun}", summary=f"Delete a {noun}",
                         description="What hangs on it goes too (its effects, gates, links).")


for _editor in ROW_EDITORS:
    _add_routes(_editor)


# profiles


@router.get("/campaigns/{campaign_id:id}/regimes/{regime_id:id}/profile", response_model=ProfilePublic,
            tags=["profiles"])
def read_profile(campaign_id: int, regime_id: int, session: SessionDep, response: Response) -> ProfilePublic:
    """The regime's newest profile: the share of step time each bucket takes. Its ETag is its id."""
    profile = profiles.read_profile(session, campaign_id, regime_id)
    response.headers["ETag"] = f'"{profile.id}"'
    return profile


@router.post("/campaigns/{campaign_id:id}/regimes/{regime_id:id}/profile", status_code=201, response_model=ProfilePublic,
             tags=["profiles"], responses=STALE_RESPONSES)
def create_profile(request: Request, campaign_id: int, regime_id: int, body: ProfileCreate, session: SessionDep,
                   now: NowDep, response: Response, if_match: IfMatch = None) -> ProfilePublic:
    """Store a new profile of the regime (the previous ones stay on record); shares below 100% go to 'other'.
    `If-Match` with the ETag of the profile read (its id; "0" when there was none) refuses it with 412 when
    another profile was stored since."""
    profile = profiles.store_profile(session, campaign_id, regime_id, body, now=now, by=user_of(request),
                                     seen_version=version_of(if_match))
    response.headers["ETag"] = f'"{profile.id}"'
    return profile


# specs

SpecKind = Literal["hardware", "model"]


@router.get("/campaigns/{campaign_id:id}/specs/{which}", tags=["specs"])
def read_spec(campaign_id: int, _campaign: CampaignDep, which: SpecKind, session: SessionDep) -> dict[str, Any]:
    """The campaign's hardware or model spec."""
    spec = spec_of(session, which, campaign_id)
    if spec is None:
        raise NotFound(f"campaign {campaign_id} has no {which} spec")
    return spec


@router.put("/campaigns/{campaign_id:id}/specs/hardware", tags=["specs"], responses=STALE_RESPONSES)
def put_hardware_spec(request: Request, campaign_id: int, _campaign: CampaignDep, body: HardwareSpecCreate,
                      session: SessionDep, now: NowDep, if_match: IfMatch = None) -> dict[str, Any]:
    """Create or replace the GPUs a decode step runs on (the ceiling is computed from them)."""
    return store_spec(session, "hardware", campaign_id, body, seen_version=version_of(if_match), now=now,
                      by=user_of(request))


@router.put("/campaigns/{campaign_id:id}/specs/model", tags=["specs"], responses=STALE_RESPONSES)
def put_model_spec(request: Request, campaign_id: int, _campaign: CampaignDep, body: ModelSpecCreate,
                   session: SessionDep, now: NowDep, if_match: IfMatch = None) -> dict[str, Any]:
    """Create or replace the model's shape as the ceiling needs it."""
    return store_spec(session, "model", campaign_id, body, seen_version=version_of(if_match), now=now,
                      by=user_of(request))


@router.delete("/campaigns/{campaign_id:id}/specs/{which}", status_code=204, tags=["specs"])
def delete_spec(request: Request, campaign_id: int, _campaign: CampaignDep, which: SpecKind, session: SessionDep,
                now: NowDep) -> Response:
    """Remove the spec: the plan then says the ceiling is unknown."""
    editing_specs.delete_spec(session, which, campaign_id, now=now, by=user_of(request))
    return Response(status_code=204)
