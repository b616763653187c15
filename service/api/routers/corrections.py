"""``/v1/corrections``: editors' splits, merges and "not the same" pairs, their withdrawal (undo); their export as
labelled pairs."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, status
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from service.api.dependencies import ServiceDep, require_api_key
from service.api.schemas import MAX_ID, CorrectionOut, StoreId
from service.corrections import (
    Correction,
    CorrectionError,
    CorrectionTargetMissing,
    Editor,
    labelled_pairs,
    list_corrections,
)

router = APIRouter(prefix="/v1", tags=["corrections"])


class _CorrectionBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str | None = Field(None, max_length=2_000)


class SplitIn(_CorrectionBase):
    """Split a member off its copy group and its story: it starts a group and a story of its own (a member
    alone in its copy group takes the group along)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"kind": "split", "document_id": 7, "note": "different council meeting"}]})

    kind: Literal["split"]
    document_id: StoreId


class MergeIn(_CorrectionBase):
    """Merge story ``from_story`` into story ``into_story``: its copy groups move there (they stay copy groups)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"kind": "merge", "into_story": 3, "from_story": 9}]})

    kind: Literal["merge"]
    into_story: StoreId
    from_story: StoreId


class NotSameIn(_CorrectionBase):
    """Mark two documents "not the same": when they share a story, ``doc_b`` leaves it (alone when they share a
    copy group, else with its copy group)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"kind": "not_same", "doc_a": 4, "doc_b": 7}]})

    kind: Literal["not_same"]
    doc_a: StoreId
    doc_b: StoreId


# One model per kind, told apart by ``kind``: the fields each kind needs are in the schema itself,
# so a schema-valid request is never refused for a missing field.
CorrectionIn = Annotated[SplitIn | MergeIn | NotSameIn, Field(discriminator="kind")]


@router.get("/corrections", response_model=list[CorrectionOut], summary="Every editor's correction, oldest first")
def get_corrections(service: ServiceDep) -> list[CorrectionOut]:
    return [CorrectionOut.model_validate(c.to_dict()) for c in service.call("read", list_corrections, service.engine.store)]


@router.post("/corrections", response_model=CorrectionOut, status_code=status.HTTP_201_CREATED,
             summary="Split a member off, merge two stories, or mark a pair not the same",
             responses={404: {"description": "no such document or story (or the document was deleted)"},
                        409: {"description": "the correction cannot be applied (the detail says why)"}})
def post_correction(body: CorrectionIn, service: ServiceDep,
                    who: Annotated[str, Depends(require_api_key)]) -> CorrectionOut:
    def apply() -> Correction:
        editor = Editor(service.engine)
        if isinstance(body, SplitIn):
            return editor.split(body.document_id, who=who, note=body.note)
        if isinstance(body, MergeIn):
            return editor.merge(body.into_story, body.from_story, who=who, note=body.note)
        return editor.not_same(body.doc_a, body.doc_b, who=who, note=body.note)

    try:
        return CorrectionOut.model_validate(service.call("correct", apply).to_dict())
    except CorrectionTargetMissing as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    except CorrectionError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc


CorrectionId = Annotated[int, Path(ge=1, le=MAX_ID, description="correction id (from GET /v1/corrections)")]


class WithdrawIn(BaseModel):
    """Why the correction is withdrawn (optional)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"note": "split the wrong member"}]})

    note: str | None = Field(None, max_length=2_000)


@router.post("/corrections/{correction_id}/withdraw", response_model=CorrectionOut,
             summary="Withdraw (undo) a correction: its constraint is lifted and what it moved is placed again",
             responses={404: {"description": "no such correction"},
                        409: {"description": "already withdrawn, its documents deleted, or its merged story merged on by a later merge "
                                             "to withdraw first (the detail says)"}})
def withdraw_correction(correction_id: CorrectionId, service: ServiceDep, who: Annotated[str, Depends(require_api_key)],
                        body: WithdrawIn | None = None) -> CorrectionOut:
    note = body.note if body is not None else None
    try:
        c = service.call("correct", lambda: Editor(service.engine).withdraw(correction_id, who=who, note=note))
    except CorrectionTargetMissing as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    except CorrectionError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
    return CorrectionOut.model_validate(c.to_dict())


@router.get("/corrections/pairs", summary="The corrections as labelled pairs (eval-data JSONL, for eval calibrate)",
            response_class=Response, responses={200: {"content": {"application/x-ndjson": {}}}})
def get_pairs(service: ServiceDep) -> Response:
    lines = service.call("read", lambda: [json.dumps(p, ensure_ascii=False) for p in labelled_pairs(service.engine.store)])
    return Response("".join(line + "\n" for line in lines), media_type="application/x-ndjson",
                    headers={"Content-Disposition": 'attachment; filename="corrections.jsonl"'})
