"""Structured logs: one JSON object per line on stderr (or plain text for a terminal)."""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone
from typing import Any

# Attributes every LogRecord has; anything else was passed with ``extra=`` and is kept.
# uvicorn's "color_message" duplicates msg with terminal escapes; it has no place in JSON.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName", "color_message"}


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", ...fields}``; fields come from ``extra={"samestory": {...}}``.

    >>> rec = logging.makeLogRecord({"msg": "warm-up", "levelname": "INFO", "name": "x",
    ...                              "samestory": {"documents": 3}, "created": 0})
    >>> json.loads(JsonFormatter().format(rec))["documents"]
    3
    """

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "samestory", None)
        if isinstance(fields, dict):
            out.update(fields)
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key != "samestory" and key not in out:
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(fmt: str = "json", level: str = "info") -> None:
    """Send every logger (ours, uvicorn's) to one stderr handler in the chosen format."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s %(samestory)s",
                                               defaults={"samestory": ""}))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # uvicorn installs its own handlers unless told otherwise; route its records through ours.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
