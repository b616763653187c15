"""``/v1/corrections``: editors' splits, merges and "not the same" pairs; their export as labelled pairs."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, status
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.api.dependencies import ServiceDep, require_api_key
from service.corrections import CorrectionError, Editor, labelled_pairs, list_corrections

router = APIRouter(prefix="/v1", tags=["corrections"])


class CorrectionIn(BaseModel):
    """One correction. ``split``: ``document_id``; ``merge``: ``into_story`` and ``from_story``;
    ``not_same``: ``doc_a`` and ``doc_b`` (``doc_b`` leaves the story when they share one)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"kind": "split", "document_id": 7, "note": "different council meeting"},
        {"kind": "merge", "into_story": 3, "from_story": 9},
        {"kind": "not_same", "doc_a": 4, "doc_b": 7}]})

    kind: Literal["split", "merge", "not_same"]
    document_id: int | None = Field(None, ge=1)
    into_story: int | None = Field(None, ge=1)
    from_story: int | None = Field(None, ge=1)
    doc_a: int | None = Field(None, ge=1)
    doc_b: int | None = Field(None, ge=1)
    note: str | None = Field(None, max_length=2_000)

    @model_validator(mode="after")
    def _fields_of_kind(self) -> CorrectionIn:
        need = {"split": ("document_id",), "merge": ("into_story", "from_story"), "not_same": ("doc_a", "doc_b")}
        missing = [f for f in need[self.kind] if getattr(self, f) is None]
        if missing:
            raise ValueError(f"a {self.kind} needs {' and '.join(need[self.kind])} (missing: {', '.join(missing)})")
        return self


class CorrectionOut(BaseModel):
    id: int
    kind: str
    doc_a: int = Field(description="first document of the labelled pair the correction stands for")
    doc_b: int
    story_from: int | None = Field(description="the story the change left (split, merge)")
    story_to: int | None = Field(description="the story it went to")
    who: str = Field(description="the name of the API key that made it")
    at: str = Field(description="when, ISO 8601 (UTC)")
    note: str | None
    label: int = Field(description="1: the pair is the same story, 0: it is not")


@router.get("/corrections", response_model=list[CorrectionOut], summary="Every editor's correction, oldest first")
def get_corrections(service: ServiceDep) -> list[dict[str, Any]]:
    return [c.to_dict() for c in service.call("read", list_corrections, service.engine.store)]


@router.post("/corrections", response_model=CorrectionOut, status_code=status.HTTP_201_CREATED,
             summary="Split a member off, merge two stories, or mark a pair not the same",
             responses={409: {"description": "the correction cannot be applied (the detail says why)"}})
def post_correction(body: CorrectionIn, service: ServiceDep,
                    who: Annotated[str, Depends(require_api_key)]) -> dict[str, Any]:
    def apply() -> Any:
        editor = Editor(service.engine)
        if body.kind == "split":
            return editor.split(body.document_id, who=who, note=body.note)  # type: ignore[arg-type]
        if body.kind == "merge":
            return editor.merge(body.into_story, body.from_story, who=who, note=body.note)  # type: ignore[arg-type]
        return editor.not_same(body.doc_a, body.doc_b, who=who, note=body.note)  # type: ignore[arg-type]

    try:
        return service.call("correct", apply).to_dict()
    except CorrectionError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc


@router.get("/corrections/pairs", summary="The corrections as labelled pairs (eval-data JSONL, for eval calibrate)",
            response_class=Response, responses={200: {"content": {"application/x-ndjson": {}}}})
def get_pairs(service: ServiceDep) -> Response:
    lines = service.call("read", lambda: [json.dumps(p, ensure_ascii=False) for p in labelled_pairs(service.engine.store)])
    return Response("".join(line + "\n" for line in lines), media_type="application/x-ndjson",
                    headers={"Content-Disposition": 'attachment; filename="corrections.jsonl"'})
