"""The OpenAPI description as the contract the service keeps, not FastAPI's first draft.

FastAPI documents 422 as its own ``HTTPValidationError`` (``detail`` an array) while this service
answers :class:`service.api.errors.ErrorOut` (``detail`` a string), and it knows nothing of the
errors that middleware and exception handlers produce (400, 401, 413, 500) or of limits that are
settings. :func:`contract` fixes the description up once, for the settings the app runs with, so
that a schema-driven client or fuzzer (schemathesis, in ``tests/service/api/test_api_schemathesis.py``) sees
exactly what the service does.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from pydantic.json_schema import models_json_schema

from service.api.auth import auth_on
from service.api.errors import _WHY, ErrorOut
from service.api.schemas import MAX_ID
from service.api.settings import Settings

_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def contract(schema: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """``schema`` (FastAPI's ``app.openapi()``) with the error responses, limits and security the
    service really has under ``settings``. The input is not modified."""
    out = copy.deepcopy(schema)
    keyed = auth_on(settings)  # api_key or named api_keys
    components = out.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    _, defs = models_json_schema([(ErrorOut, "serialization")], ref_template="#/components/schemas/{model}")
    schemas.update(defs.get("$defs", {}))
    error_content = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
    for path, item in out.get("paths", {}).items():
        for method, op in item.items():
            if method not in _METHODS:
                continue
            responses = op.setdefault("responses", {})
            codes = [500]
            if op.get("parameters") or op.get("requestBody"):
                codes.append(422)
            if op.get("requestBody"):
                codes += [400, 413, 415]
            if keyed and path != "/healthz":
                codes.append(401)
            for code in codes:
                responses.setdefault(str(code), {"description": _WHY[code]})
            for code, response in responses.items():
                if code[0] in "45":
                    response["content"] = error_content
            if not keyed:
                op.pop("security", None)
    for model in schemas.values():
        _integer_bounds(model)
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    if not keyed:
        components.pop("securitySchemes", None)
    _limit(schemas, "IngestRequest", "articles", "maxItems", settings.max_batch)
    _limit(schemas, "DedupeRequest", "texts", "maxItems", settings.max_dedupe_texts)
    _limit(schemas, "DedupeRequest", "records", "maxItems", settings.max_dedupe_texts)
    for item in out.get("paths", {}).values():
        for param in item.get("get", {}).get("parameters", []):
            if param.get("name") == "limit" and param.get("in") == "query":
                param["schema"]["maximum"] = settings.max_page
    return out


def _integer_bounds(node: Any) -> None:
    """Integer bounds as integers. FastAPI's OpenAPI models hold ``maximum`` as a float, so a body
    field's ``le=2**63 - 1`` reaches the description as 9.223372036854776e18 (= 2**63), and a client
    (schemathesis) may then send 2**63 as valid; a float bound is rounded inward to an integer.

    >>> n = {"type": "integer", "maximum": float(2**63), "minimum": 1.0}
    >>> _integer_bounds(n); n == {"type": "integer", "maximum": 2**63 - 1, "minimum": 1}
    True
    """
    if isinstance(node, dict):
        if node.get("type") == "integer":
            if isinstance(node.get("maximum"), float):
                node["maximum"] = min(int(node["maximum"]), MAX_ID)
            if isinstance(node.get("minimum"), float):
                node["minimum"] = math.ceil(node["minimum"])
        for value in node.values():
            _integer_bounds(value)
    elif isinstance(node, list):
        for value in node:
            _integer_bounds(value)


def _limit(schemas: dict[str, Any], model: str, field: str, key: str, value: int) -> None:
    prop = schemas.get(model, {}).get("properties", {}).get(field)
    if prop is not None:
        prop[key] = value
